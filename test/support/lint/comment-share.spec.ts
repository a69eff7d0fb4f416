import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The most of src's non-blank lines (specs aside) that may be comments: a comment states a reason in a line or two. */
const MAX_COMMENT_SHARE = 0.1;
const MAX_FILE_LINES = 300;

const COMMENT_LINE = /^\s*(\/\/|\/\*|\*)/;

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Comment lines and all non-blank lines of a text. */
function shareOf(text: string): { comments: number; lines: number } {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return { comments: lines.filter((line) => COMMENT_LINE.test(line)).length, lines: lines.length };
}

describe('the source as a newcomer reads it', () => {
  const files = sourceFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));

  it(`has at most ${MAX_COMMENT_SHARE * 100} % of its non-blank lines in comments`, () => {
    const total = files
      .map(({ text }) => shareOf(text))
      .reduce((sum, file) => ({
        comments: sum.comments + file.comments,
        lines: sum.lines + file.lines,
      }));
    const share = total.comments / total.lines;
    console.log(
      `src: ${total.comments} of ${total.lines} non-blank lines are comments (${(share * 100).toFixed(1)} %)`,
    );
    expect(share).toBeLessThanOrEqual(MAX_COMMENT_SHARE);
  });

  it('counts a comment line of each form, and no code line', () => {
    const text =
      '/** A reason. */\nconst a = 1;\n\n// Another.\n/* legacy\n * form */\nconst b = `// not a comment`;\n';
    expect(shareOf(text)).toEqual({ comments: 4, lines: 6 });
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.filter(({ text }) => (text.match(/\n/g) ?? []).length > MAX_FILE_LINES).map(({ path }) => path);
    expect(long).toEqual([]);
  });
});
