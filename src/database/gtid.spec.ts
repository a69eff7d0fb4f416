import { describe, expect, it } from '@jest/globals';
import {
  contains,
  gtidDialectOf,
  MARIADB_GTID_DIALECT,
  MYSQL_GTID_DIALECT,
  union,
  type ReplicationPosition,
} from './gtid';

const UUID_A = '3e11fa47-71ca-11e1-9e33-c80aa9429562';
const UUID_B = '8a94f357-aab4-11df-86ab-c80aa9429562';

const mariadb = (text: string): ReplicationPosition => MARIADB_GTID_DIALECT.parse(text)!;
const mysql = (text: string): ReplicationPosition => MYSQL_GTID_DIALECT.parse(text)!;

describe('GTID positions (docs/API.md §19)', () => {
  describe('the wait’s answer', () => {
    it('is reached on 0 for both servers, and a timeout is -1 on MariaDB but 1 on MySQL', () => {
      expect(MARIADB_GTID_DIALECT.reached(0)).toBe(true);
      expect(MARIADB_GTID_DIALECT.reached(-1)).toBe(false);
      expect(MYSQL_GTID_DIALECT.reached(0)).toBe(true);
      // Taking MySQL's 1 for success, as a reading of "non-negative is fine" would, serves stale pages as fresh.
      expect(MYSQL_GTID_DIALECT.reached(1)).toBe(false);
      expect(MYSQL_GTID_DIALECT.reached('0')).toBe(true);
    });

    it('is an error, never a success, when the server answers NULL', () => {
      expect(() => MARIADB_GTID_DIALECT.reached(null)).toThrow('NULL');
      expect(() => MYSQL_GTID_DIALECT.reached(null)).toThrow('NULL');
    });

    it('is asked with the statement of each kind of server', () => {
      expect(MARIADB_GTID_DIALECT.waitStatement).toContain('MASTER_GTID_WAIT(?, ?)');
      expect(MYSQL_GTID_DIALECT.waitStatement).toContain('WAIT_FOR_EXECUTED_GTID_SET(?, ?)');
      expect(gtidDialectOf('10.11.19-MariaDB-0+deb12u1')).toBe(MARIADB_GTID_DIALECT);
      expect(gtidDialectOf('8.4.3')).toBe(MYSQL_GTID_DIALECT);
    });
  });

  describe('MariaDB', () => {
    it('compares positions domain by domain', () => {
      const applied = mariadb('0-1-100,1-2-7');
      expect(contains(applied, mariadb('0-1-100'))).toBe(true);
      expect(contains(applied, mariadb('0-3-99,1-2-7'))).toBe(true);
      expect(contains(applied, mariadb('0-1-101'))).toBe(false);
      // A domain the replica has never seen is not applied, however low its sequence.
      expect(contains(applied, mariadb('2-1-1'))).toBe(false);
      expect(contains(applied, mariadb(''))).toBe(true);
    });

    it('joins what two waits saw', () => {
      const joined = union(mariadb('0-1-100,1-2-3'), mariadb('0-1-90,1-2-7'));
      expect(contains(joined, mariadb('0-1-100,1-2-7'))).toBe(true);
      expect(contains(joined, mariadb('0-1-101'))).toBe(false);
    });

    it('refuses what MariaDB does not write', () => {
      for (const text of ['0-1', '0-1-x', '-1-1-5', '0-1-5,0-2-6', `0-1-${2 ** 60}`, '4294967296-1-5', `${UUID_A}:5`]) {
        expect(MARIADB_GTID_DIALECT.parse(text)).toBeUndefined();
      }
    });
  });

  describe('MySQL', () => {
    it('compares sets range by range, source by source', () => {
      const applied = mysql(`${UUID_A}:1-100:102-110,${UUID_B}:1-5`);
      expect(contains(applied, mysql(`${UUID_A}:100`))).toBe(true);
      expect(contains(applied, mysql(`${UUID_A.toUpperCase()}:1-50:105`))).toBe(true);
      expect(contains(applied, mysql(`${UUID_A}:101`))).toBe(false);
      expect(contains(applied, mysql(`${UUID_A}:100-102`))).toBe(false);
      expect(contains(applied, mysql(`${UUID_B}:6`))).toBe(false);
    });

    it('reads the tags of MySQL 8.4 as sources of their own', () => {
      const applied = mysql(`${UUID_A}:1-10:orders:1-3`);
      expect(contains(applied, mysql(`${UUID_A}:orders:3`))).toBe(true);
      expect(contains(applied, mysql(`${UUID_A}:orders:4`))).toBe(false);
      expect(contains(applied, mysql(`${UUID_A}:10`))).toBe(true);
    });

    it('joins what two waits saw, adjacent ranges into one', () => {
      const joined = union(mysql(`${UUID_A}:1-5`), mysql(`${UUID_A}:6-9,${UUID_B}:1`));
      expect(contains(joined, mysql(`${UUID_A}:1-9`))).toBe(true);
      expect(contains(joined, mysql(`${UUID_B}:1`))).toBe(true);
    });

    it('refuses what MySQL does not write', () => {
      for (const text of [`${UUID_A}`, `${UUID_A}:0`, `${UUID_A}:5-3`, `${UUID_A}:1-x`, 'not-a-uuid:5', '0-1-5']) {
        expect(MYSQL_GTID_DIALECT.parse(text)).toBeUndefined();
      }
    });
  });

  it('never takes one kind of position for the other', () => {
    expect(contains(mariadb('0-1-5'), mysql(`${UUID_A}:5`))).toBe(false);
  });
});
