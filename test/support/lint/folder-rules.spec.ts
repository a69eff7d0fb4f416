import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cruise, type ICruiseResult, type IFlattenedRuleSet } from 'dependency-cruiser';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The rules `npm run lint` checks, as the repository holds them. */
const { forbidden } = createRequire(join(process.cwd(), 'package.json'))(
  './.dependency-cruiser.cjs',
) as IFlattenedRuleSet;

/** A tree of its own, laid out as src/ is, with one import each test plants. */
let tree: string;

function plant(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
}

async function violations(): Promise<string[]> {
  const { output } = await cruise(['src'], { baseDir: tree, validate: true, ruleSet: { forbidden } });
  return (output as ICruiseResult).summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`);
}

describe('the folder rules of the listing (npm run lint)', () => {
  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), 'folder-rules-'));
    plant({
      'src/orders/model.ts': 'export type Filters = { status?: string };\n',
      'src/orders/orders.service.ts':
        "import type { Filters } from './model';\nexport const list = (filters: Filters) => filters;\n",
      'src/orders/query/sort.ts':
        "import type { Filters } from '../model';\nexport const sortOf = (filters: Filters) => filters;\n",
      'src/orders/dto/page.dto.ts': 'export class PageDto {}\n',
    });
  });

  afterAll(() => {
    rmSync(tree, { recursive: true, force: true });
  });

  it('let a sub-folder use the model and the sub-folders below it', async () => {
    plant({ 'src/orders/query/pipe.ts': "import { PageDto } from '../dto/page.dto';\nexport const dto = PageDto;\n" });
    expect(await violations()).toEqual([]);
  });

  it('fail a sub-folder that imports one above it', async () => {
    plant({ 'src/orders/dto/planted.ts': "import { sortOf } from '../query/sort';\nexport const planted = sortOf;\n" });
    expect(await violations()).toContain('orders-dto: src/orders/dto/planted.ts → src/orders/query/sort.ts');
    rmSync(join(tree, 'src/orders/dto/planted.ts'));
  });

  it('fail a sub-folder that imports the feature’s own files', async () => {
    plant({
      'src/orders/query/planted.ts': "import { list } from '../orders.service';\nexport const planted = list;\n",
    });
    expect(await violations()).toContain('orders-query: src/orders/query/planted.ts → src/orders/orders.service.ts');
    rmSync(join(tree, 'src/orders/query/planted.ts'));
  });
});
