import { Inject, Injectable, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { Caller } from '../../auth/role';
import { DATA_STALENESS_HEADER, dataStalenessOf } from '../../common/data-staleness';
import { problemOf, ProblemException } from '../../common/problem/problem-details';
import { variantOf } from '../../observability/http-metrics';
import { Metrics } from '../../observability/metrics';
import { ExportSlots } from '../../rate-limit/export-slots';
import { AccessRecorder } from '../../access-records/access-recorder';
import { noteAccess } from '../access-parameters';
import type { OrderElement } from '../dto/order.dto';
import type { ListOrdersQuery } from '../query/list-orders-query';
import { ExportBatches } from './export-batches';
import type { ExportEncoder } from './export-encoder';
import { encoderFor, type ExportOptions } from './export-format';
import type { ExportFormat } from '../model';

/** A spreadsheet's rows per sheet for the XLSX export; its own token so that a test can lower it. */
export const XLSX_ROWS_PER_SHEET = Symbol('XLSX_ROWS_PER_SHEET');

/** A line in the log every this many orders, so that a long export shows it is alive and how fast it goes. */
const PROGRESS_EVERY_ROWS = 100_000;

type Outcome = 'complete' | 'cancelled' | 'failed';

/** docs/API.md §13, an export: the first batch is read before anything is sent (a failure is then a 503, not a broken
 * stream); a failure after that cuts the connection, so that no client takes a truncated export for a whole one.
 * Others' orders leave once their access record is committed, and their end is recorded however it ends (§21). */
@Injectable()
export class OrderExports {
  private readonly logger = new Logger('OrderExports');

  constructor(
    private readonly exportBatches: ExportBatches,
    private readonly slots: ExportSlots,
    private readonly metrics: Metrics,
    private readonly recorder: AccessRecorder,
    @Inject(XLSX_ROWS_PER_SHEET) private readonly rowsPerSheet: number,
  ) {}

  async send(
    caller: Caller,
    query: ListOrdersQuery,
    format: ExportFormat,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const labels = { variant: variantOf(request), format };
    const othersOrders = query.variant.othersOrders;
    if (othersOrders) noteAccess(request, query, format);
    const options: ExportOptions = {
      byteOrderMark: query.byteOrderMark,
      fields: query.fields,
      rowsPerSheet: this.rowsPerSheet,
    };
    const encoder = encoderFor(format, query.variant.columns, options);
    const headed = reply
      .header('Content-Type', encoder.contentType)
      .header('Content-Disposition', `attachment; filename="orders.${encoder.fileExtension}"`)
      .header('Cache-Control', 'private, no-store');
    // What GET would answer, without reading every order to throw it away.
    if (request.method === 'HEAD') return void headed.send();
    const slot = await this.slots.take(caller);
    if (!slot) {
      this.metrics.exports.inc({ ...labels, outcome: 'refused' });
      throw new ProblemException(problemOf('exportsRunning'));
    }
    // Watched from the start: a client gone while the first batch is read stops it too.
    const cancelled = new AbortController();
    const stopIfGone = () => {
      if (!reply.raw.writableFinished) cancelled.abort();
    };
    reply.raw.once('close', stopIfGone);
    // The whole export comes from the server pinned now: how far behind it is, if it is a replica behind, is told once.
    let position: Promise<string | undefined> | undefined;
    const batches = this.exportBatches.read(query, cancelled.signal, (behindSeconds, positionNow) => {
      if (behindSeconds !== undefined) void headed.header(DATA_STALENESS_HEADER, dataStalenessOf(behindSeconds));
      if (othersOrders) position = positionNow();
    });
    let first: IteratorResult<OrderElement[]> | undefined;
    try {
      first = await batches.next();
    } catch (error) {
      if (!cancelled.signal.aborted) {
        await slot.release();
        throw error;
      }
    }
    if (!first || cancelled.signal.aborted) {
      // Gone before the first byte: nobody to answer.
      await batches.return(undefined);
      await slot.release();
      this.metrics.exports.inc({ ...labels, outcome: 'cancelled' });
      return;
    }

    request.exportPosition = (await position) || undefined;
    const progress = { rows: 0, bytes: 0, failure: undefined as unknown, complete: false };
    const startedAt = performance.now();
    const describe = () =>
      `${labels.variant} ${format} export [request ${request.id}]: ${progress.rows} orders in ${Math.round(performance.now() - startedAt)} ms`;
    const written = (elements: readonly OrderElement[]): void => {
      const before = progress.rows;
      progress.rows += elements.length;
      this.metrics.exportedRows.inc(labels, elements.length);
      if (Math.floor(progress.rows / PROGRESS_EVERY_ROWS) > Math.floor(before / PROGRESS_EVERY_ROWS)) {
        this.logger.log(`Still running: ${describe()}`);
      }
    };

    reply.raw.once('close', () => {
      // Whole only if every byte, the end included, was handed over; else the stream failed or the client went.
      const outcome: Outcome =
        progress.complete && reply.raw.writableFinished
          ? 'complete'
          : progress.failure !== undefined
            ? 'failed'
            : 'cancelled';
      void slot.release();
      if (request.problemReason === 'access-record') {
        this.metrics.exports.inc({ ...labels, outcome: 'refused' });
        return;
      }
      if (request.accessRecord) {
        const { rows: orders, bytes } = progress;
        const figures = { at: new Date(), orders, bytes, complete: outcome === 'complete' };
        this.recorder.end(request.accessRecord, String(caller.id), figures);
      }
      this.metrics.exports.inc({ ...labels, outcome });
      if (outcome === 'failed') {
        this.logger.error(`Aborted without its end: ${describe()}`, String(progress.failure));
      } else {
        this.logger.log(`${outcome === 'complete' ? 'Complete' : 'Cancelled by the client'}: ${describe()}`);
      }
    });

    request.streamedExport = true;
    void headed.send(
      // One chunk ahead of the socket: memory holds a batch or two whatever the export's size.
      Readable.from(chunks(encoder, counted(first, batches, written), progress), { highWaterMark: 1 }),
    );
  }
}

/** The batches, the first already read, each counted once the encoder has taken it. */
async function* counted(
  first: IteratorResult<OrderElement[]>,
  rest: AsyncGenerator<OrderElement[]>,
  written: (elements: readonly OrderElement[]) => void,
): AsyncGenerator<OrderElement[]> {
  const elements = first.done ? [] : first.value;
  yield elements;
  written(elements);
  if (first.done) return;
  for await (const batch of rest) {
    yield batch;
    written(batch);
  }
}

/** The export's bytes, as its encoder writes them from the batches; whole only once the encoder has ended. */
async function* chunks(
  encoder: ExportEncoder,
  batches: AsyncGenerator<OrderElement[]>,
  progress: { bytes: number; failure: unknown; complete: boolean },
): AsyncGenerator<Buffer | string> {
  try {
    for await (const chunk of encoder.encode(batches)) {
      yield chunk;
      progress.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    }
    progress.complete = true;
  } catch (error) {
    progress.failure = error;
    throw error;
  }
}
