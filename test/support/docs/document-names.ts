import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';

/**
 * What the documents may name (docs/API.md §16): the words of the repository's code and configuration, its files,
 * its npm scripts and the problem types of the catalogue. Built once from the working tree.
 */
export interface RepositoryIndex {
  /** Every identifier-like word of the code and configuration files. */
  words: ReadonlySet<string>;
  scripts: ReadonlySet<string>;
  problemTypes: ReadonlySet<string>;
  /** Whether a path, relative to the repository's root, exists. */
  exists(path: string): boolean;
  /** The names of the repository's files, for a document that names one without its directory. */
  fileNames: ReadonlySet<string>;
  /** Names the code had when a decision was recorded, renamed since (`renamesIn`): valid in decision records only. */
  formerNames: ReadonlySet<string>;
}

/** What a document names that the repository does not hold, with the line it is on. */
export interface StaleName {
  line: number;
  name: string;
  why: string;
}

/** Where the code and configuration live; generated clients and dependencies are not the project's words. */
const CODE_ROOTS = ['src', 'test', 'bench', 'launchers', 'deploy', '.ci'];
const CODE_FILES = [
  'Dockerfile',
  'package.json',
  '.env.example',
  'ormconfig.ts',
  'nest-cli.json',
  '.dependency-cruiser.cjs',
  'eslint.config.mjs',
];
// This checker's own test plants stale names: its words are not the code's.
const SKIPPED = /(^|\/)(node_modules|generated|dist)(\/|$)|^test\/support\/docs\//;
const CODE_FILE = /\.(ts|js|cjs|mjs|json|ya?ml|cfg|cnf|sh)$|(^|\/)run$/;

function filesUnder(root: string, directory: string): string[] {
  const path = join(root, directory);
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return [directory];
  return readdirSync(path).flatMap((entry) => {
    const child = join(directory, entry);
    return SKIPPED.test(child) ? [] : filesUnder(root, child);
  });
}

export function indexRepository(root: string, problemTypes: readonly string[]): RepositoryIndex {
  const words = new Set<string>();
  const files = [...CODE_ROOTS.flatMap((directory) => filesUnder(root, directory)), ...CODE_FILES].filter(
    (file) => CODE_FILE.test(file) || CODE_FILES.includes(file),
  );
  for (const file of files) {
    if (!existsSync(join(root, file))) continue;
    for (const word of readFileSync(join(root, file), 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
  }
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const fileNames = new Set(
    [...CODE_ROOTS, 'docs'].flatMap((directory) => filesUnder(root, directory)).map((file) => basename(file)),
  );
  const formerNames = new Set(
    filesUnder(root, 'docs/adr')
      .filter(isDecisionRecord)
      .flatMap((record) =>
        [...renamesIn(readFileSync(join(root, record), 'utf8'))]
          // A rename counts once its new name is the code's.
          .filter(([, now]) => now.split('.').every((part) => words.has(part.replace(/\(.*\)$/, ''))))
          .map(([before]) => before),
      ),
  );
  return {
    words,
    fileNames,
    formerNames,
    scripts: new Set(Object.keys(manifest.scripts)),
    problemTypes: new Set(problemTypes),
    exists: (path) => existsSync(join(root, path)),
  };
}

/** The directories a relative path in the code may start from. */
const PATH_START =
  /^(\.\.\/)*(src|test|docs|deploy|bench|launchers|\.ci)\/|^[\w.-]+\.(md|ts|json|ya?ml|cfg|cnf|png|svg)$/;
const ENVIRONMENT_VARIABLE = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(=.*)?$/;
const IDENTIFIER = /^(?:@?[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*(?:\(.*\))?$/;
/**
 * The code's own names are camelCase or PascalCase. Lower-case and snake_case words in backticks are the
 * database's, HTTP's or an identity provider's (`read_only`, `jwks_uri`), which the code need not spell.
 */
const CODE_CASE = /[a-z][A-Z]|^@?[A-Z][a-z]/;

/** The backticked spans of a markdown text outside fenced blocks, and the targets of its relative links. */
function namesIn(markdown: string): Array<{ line: number; text: string; link: boolean }> {
  const names: Array<{ line: number; text: string; link: boolean }> = [];
  let fenced = false;
  for (const [index, line] of markdown.split('\n').entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.matchAll(/`([^`]+)`/g)) names.push({ line: index + 1, text: match[1], link: false });
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:|^#/.test(match[1])) names.push({ line: index + 1, text: match[1], link: true });
    }
  }
  return names;
}

/**
 * What a document at `documentPath` (relative to the root) names that does not exist: a file or link target, an npm
 * script, an environment variable, a problem type, or an identifier of the code.
 */
export function staleNames(markdown: string, documentPath: string, index: RepositoryIndex): StaleName[] {
  const stale: StaleName[] = [];
  // A decision record is never edited: it may keep a name of its time that a later record says was renamed.
  const former = isDecisionRecord(documentPath) ? index.formerNames : new Set<string>();
  for (const { line, text, link } of namesIn(markdown)) {
    if (!link && former.has(text.trim())) continue;
    const why = link ? missingLink(text, documentPath, index) : missingName(text.trim(), index);
    if (why) stale.push({ line, name: text, why });
  }
  return stale;
}

const isDecisionRecord = (documentPath: string): boolean => /^docs\/adr\/\d{4}-/.test(documentPath);

/** A row of a decision record's table of renames: `| \`Before\` | \`Now\` |`. */
const RENAMED_ROW = /^\| *`([^`]+)` *\| *`([^`]+)` *\|/;

/** The names the decision records say the code no longer uses, each with the name it has now. */
export function renamesIn(markdown: string): Map<string, string> {
  return new Map(
    markdown.split('\n').flatMap((line) => {
      const row = RENAMED_ROW.exec(line);
      return row ? [[row[1], row[2]] as [string, string]] : [];
    }),
  );
}

function missingLink(target: string, documentPath: string, index: RepositoryIndex): string | undefined {
  const path = normalize(join(dirname(documentPath), target.split('#')[0]));
  return index.exists(path) ? undefined : `links to ${path}, which does not exist`;
}

function missingName(text: string, index: RepositoryIndex): string | undefined {
  const script = /^npm run ([\w:.-]+)/.exec(text);
  if (script) return index.scripts.has(script[1]) ? undefined : `no npm script ${script[1]}`;
  const problem = /^(\/problems\/[\w-]+)/.exec(text);
  if (problem) return index.problemTypes.has(problem[1]) ? undefined : `no problem type ${problem[1]}`;
  if (PATH_START.test(text) && !/[<>*…{}\s]/.test(text)) {
    const path = text.replace(/[:#].*$/, '').replace(/\/$/, '');
    // A name without its directory, after the document has named the directory: any file of that name.
    const found = index.exists(path) || (!path.includes('/') && index.fileNames.has(path));
    return found ? undefined : `no file ${path}`;
  }
  const variable = ENVIRONMENT_VARIABLE.exec(text);
  if (variable) return index.words.has(variable[1]) ? undefined : `no variable ${variable[1]} in the code`;
  if (IDENTIFIER.test(text) && CODE_CASE.test(text)) {
    const parts = text
      .replace(/\(.*\)$/, '')
      .replace(/^@/, '')
      .split('.');
    const unknown = parts.filter((part) => !index.words.has(part));
    // Dotted names are often claims, hosts or files: judged stale when no part is known, or when a class of the
    // code is named with a member it does not have.
    const ofAKnownClass = /^[A-Z]/.test(parts[0]) && index.words.has(parts[0]);
    if (unknown.length === parts.length || (ofAKnownClass && unknown.length > 0)) {
      return `no identifier ${text} in the code`;
    }
  }
  return undefined;
}

/** The markdown documents of the repository that describe it as it is now (history is CHANGELOG's and git's). */
export function currentDocuments(root: string): string[] {
  return ['README.md', ...filesUnder(root, 'docs').filter((file) => file.endsWith('.md'))];
}

/** A citation of the API reference's sections in code: `docs/API.md §14`, `docs/API.md §18, §19`. */
const SECTION_CITATION = /docs\/API\.md((?:,? ?§\d+)+)/g;

/** The section numbers `docs/API.md` has: its `## N.` headings. */
export function sectionsOf(reference: string): Set<number> {
  return new Set([...reference.matchAll(/^## (\d+)\./gm)].map((match) => Number(match[1])));
}

/** Each `docs/API.md §N` in a source text whose section the reference does not have, with its line. */
export function deadCitations(source: string, sections: ReadonlySet<number>): Array<{ line: number; section: number }> {
  const dead: Array<{ line: number; section: number }> = [];
  for (const [index, text] of source.split('\n').entries()) {
    for (const citation of text.matchAll(SECTION_CITATION)) {
      for (const number of citation[1].matchAll(/§(\d+)/g)) {
        if (!sections.has(Number(number[1]))) dead.push({ line: index + 1, section: Number(number[1]) });
      }
    }
  }
  return dead;
}

/** Words as `wc -w` counts them. */
export const wordsOf = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** A table row a reader must read across, its alignment padding collapsed; a `---` separator row is no content. */
const MOST_TABLE_ROW_CHARACTERS = 600;
const TABLE_SEPARATOR = /^\|[\s:|-]+\|$/;

/** The rows of a markdown document's tables longer than a reader can take in at once. */
export function overlongTableRows(markdown: string): Array<{ line: number; characters: number }> {
  return markdown.split('\n').flatMap((text, index) => {
    const collapsed = text.replace(/ {2,}/g, ' ');
    return collapsed.startsWith('|') && !TABLE_SEPARATOR.test(collapsed) && collapsed.length > MOST_TABLE_ROW_CHARACTERS
      ? [{ line: index + 1, characters: collapsed.length }]
      : [];
  });
}

/** The documents, of those given with their text, whose words exceed their budget. */
export function overBudget(texts: Record<string, string>, budgets: Record<string, number>): string[] {
  return Object.entries(budgets)
    .filter(([document, budget]) => wordsOf(texts[document] ?? '') > budget)
    .map(([document]) => document);
}
