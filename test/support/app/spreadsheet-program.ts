import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';

const run = promisify(execFile);

/** LibreOffice's CSV filter: `,` between fields, `"` around text, UTF-8, from the first line. */
const CSV_FILTER = 'Text - txt - csv (StarCalc)';
/** Export tokens: cells as shown (their number format applied), and every sheet to a file of its own (`-1`). */
const CSV_EXPORT_OPTIONS = '44,34,76,1,,0,false,true,true,false,false,-1';

/**
 * LibreOffice Calc from Debian, headless, with a profile of its own: it opens a file as a desktop would and writes it
 * back as CSV or as flat OpenDocument XML, whose cells carry their types.
 */
export class SpreadsheetProgram {
  private constructor(private readonly directory: string) {}

  static async open(): Promise<SpreadsheetProgram> {
    return new SpreadsheetProgram(await mkdtemp(join(tmpdir(), 'orders-spreadsheet-')));
  }

  /** Each sheet of a workbook as CSV text, in the workbook's order of sheets. */
  async sheetsAsCsv(workbook: Buffer): Promise<string[]> {
    const outputs = await this.convert('orders.xlsx', workbook, `csv:${CSV_FILTER}:${CSV_EXPORT_OPTIONS}`);
    const sheets = outputs.filter((name) => name.endsWith('.csv'));
    // One file per sheet, named after it: `orders-orders.csv`, `orders-orders 2.csv`, …
    const numberOf = (name: string) => Number(/orders-orders(?: (\d+))?\.csv$/.exec(name)?.[1] ?? 1);
    sheets.sort((a, b) => numberOf(a) - numberOf(b));
    return Promise.all(sheets.map((name) => readFile(join(this.directory, 'out', name), 'utf8')));
  }

  /** A file as flat OpenDocument XML; a CSV is read with `csvImport`'s tokens, the charset left to LibreOffice. */
  async asFlatXml(name: string, content: Buffer, csvImport?: string): Promise<string> {
    const outputs = await this.convert(name, content, 'fods', csvImport && `${CSV_FILTER}:${csvImport}`);
    return readFile(join(this.directory, 'out', outputs[0]), 'utf8');
  }

  async close(): Promise<void> {
    await rm(this.directory, { recursive: true, force: true });
  }

  private async convert(name: string, content: Buffer, target: string, inputFilter?: string): Promise<string[]> {
    const output = join(this.directory, 'out');
    await rm(output, { recursive: true, force: true });
    await writeFile(join(this.directory, name), content);
    await run(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${join(this.directory, 'profile')}`,
        ...(inputFilter ? [`--infilter=${inputFilter}`] : []),
        '--convert-to',
        target,
        '--outdir',
        output,
        join(this.directory, name),
      ],
      { timeout: 120_000 },
    );
    const outputs = await readdir(output);
    if (outputs.length === 0) throw new Error(`LibreOffice wrote nothing for ${name} as ${target}`);
    return outputs;
  }
}

export interface FlatXmlCell {
  type: string;
  value?: string;
  text: string;
}

type XmlCell = Record<string, string | undefined> & { 'text:p'?: string[] };

const flatXml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => ['table:table', 'table:table-row', 'table:table-cell', 'text:p'].includes(name),
});

/** The rows of a flat OpenDocument spreadsheet's first table, each cell with its type and value as Calc holds them. */
export function flatXmlRows(document: string): FlatXmlCell[][] {
  const parsed = flatXml.parse(document) as {
    'office:document': {
      'office:body': {
        'office:spreadsheet': {
          'table:table': Array<{ 'table:table-row'?: Array<{ 'table:table-cell'?: XmlCell[] }> }>;
        };
      };
    };
  };
  const [table] = parsed['office:document']['office:body']['office:spreadsheet']['table:table'];
  return (table['table:table-row'] ?? []).map((row) =>
    (row['table:table-cell'] ?? []).flatMap((cell) => {
      const read: FlatXmlCell = {
        type: cell['office:value-type'] ?? 'empty',
        value: cell['office:date-value'] ?? cell['office:value'],
        text: (cell['text:p'] ?? []).join('\n'),
      };
      return Array.from({ length: Number(cell['table:number-columns-repeated'] ?? 1) }, () => read);
    }),
  );
}
