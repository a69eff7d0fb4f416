import { describe, expect, it } from '@jest/globals';
import { MARIADB_GTID_DIALECT, MYSQL_GTID_DIALECT } from './gtid';
import { parseHistory, writeVerdict, type WriteHistory } from './write-history';

const mariadb = (text: string): WriteHistory => {
  const history = parseHistory('mariadb', text);
  if (!history) throw new Error(`not a history: ${text}`);
  return history;
};
const mysql = (text: string): WriteHistory => {
  const history = parseHistory('mysql', text);
  if (!history) throw new Error(`not a history: ${text}`);
  return history;
};
const verdictOf = (history: WriteHistory, position: string) => {
  const dialect = history.flavour === 'mariadb' ? MARIADB_GTID_DIALECT : MYSQL_GTID_DIALECT;
  const parsed = dialect.parse(position);
  if (!parsed) throw new Error(`not a position: ${position}`);
  return writeVerdict(history, parsed);
};

describe('a writer’s position against the primary’s history, server part kept', () => {
  describe('MariaDB (domain-server-sequence)', () => {
    // Server 1 was the primary up to 0-1-500; server 2 took over having applied 0-1-480, and wrote 0-2-481…0-2-600.
    const promoted = mariadb('2;0-1-480,0-2-600;0-1-480');

    it('holds what the primary wrote itself, and what it applied before it was promoted', () => {
      expect(verdictOf(promoted, '0-2-600')).toBe('held');
      expect(verdictOf(promoted, '0-2-481')).toBe('held');
      expect(verdictOf(promoted, '0-1-480')).toBe('held');
      expect(verdictOf(promoted, '0-1-12')).toBe('held');
    });

    it('finds lost the old primary’s writes the new one never received, though its own sequence has passed them', () => {
      // Compared by sequence alone, 490 ≤ 600 would read as held: the server part is what tells them apart.
      expect(verdictOf(promoted, '0-1-490')).toBe('lost');
      expect(verdictOf(promoted, '0-1-500')).toBe('lost');
    });

    it('finds ahead a position past the primary’s own writes, or of a server it has never heard of', () => {
      expect(verdictOf(promoted, '0-2-601')).toBe('ahead');
      expect(verdictOf(promoted, '0-9-5')).toBe('ahead');
      expect(verdictOf(promoted, '7-2-1')).toBe('ahead');
    });

    it('judges a position of several domains by its worst part, lost before ahead', () => {
      const history = mariadb('2;0-2-600,1-2-40;');
      expect(verdictOf(history, '0-2-10,1-2-40')).toBe('held');
      expect(verdictOf(history, '0-2-10,1-2-41')).toBe('ahead');
      expect(verdictOf(mariadb('2;0-2-600,1-1-40;1-1-40'), '0-2-601,1-1-41')).toBe('lost');
    });

    it('reads the last transaction of each origin from binlog state and replica position, the higher winning', () => {
      const history = mariadb('3;0-1-100,0-3-7;0-1-120');
      expect(verdictOf(history, '0-1-120')).toBe('held');
      expect(verdictOf(history, '0-3-7')).toBe('held');
      expect(verdictOf(history, '0-1-121')).toBe('lost');
    });

    it('reads a server that never wrote or replicated, and refuses an answer without its id', () => {
      expect(verdictOf(mariadb('1'), '0-1-1')).toBe('ahead');
      expect(parseHistory('mariadb', '')).toBeUndefined();
    });
  });

  describe('MySQL (source UUID and intervals)', () => {
    const OLD = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
    const NEW = '4f22ab58-82db-22f2-af44-d91bba53a673';
    // The new primary applied the old one's 1-480 and wrote 1-120 of its own.
    const promoted = mysql(`${NEW.toUpperCase()};${OLD}:1-480,\n${NEW}:1-120`);

    it('holds the surviving writes of either server, by interval', () => {
      expect(verdictOf(promoted, `${OLD}:1-480`)).toBe('held');
      expect(verdictOf(promoted, `${OLD}:100-200,${NEW}:120`)).toBe('held');
    });

    it('finds lost the old primary’s writes past what survived', () => {
      expect(verdictOf(promoted, `${OLD}:481`)).toBe('lost');
      expect(verdictOf(promoted, `${OLD}:1-490`)).toBe('lost');
    });

    it('finds ahead what the primary has not written yet, or a source it has never heard of', () => {
      expect(verdictOf(promoted, `${NEW}:121`)).toBe('ahead');
      expect(verdictOf(promoted, '5a33bc69-93ec-33f3-b055-e02ccb64b784:1')).toBe('ahead');
    });

    it('keeps a tagged source apart from the untagged one (MySQL 8.4)', () => {
      const tagged = mysql(`${NEW};${NEW}:1-120:sale:1-3`);
      expect(verdictOf(tagged, `${NEW}:sale:3`)).toBe('held');
      expect(verdictOf(tagged, `${NEW}:sale:4`)).toBe('ahead');
    });
  });

  it('never holds a position of the other kind of server', () => {
    const position = MYSQL_GTID_DIALECT.parse('3e11fa47-71ca-11e1-9e33-c80aa9429562:1');
    if (!position) throw new Error('a MySQL position');
    expect(writeVerdict(mariadb('1;0-1-5;'), position)).toBe('ahead');
  });
});
