import type { OrderElement } from '../dto/order.dto';

/** How one export's elements are written: its bytes, read as the batches come; a failed export ends without its end. */
export interface ExportEncoder {
  readonly contentType: string;
  readonly fileExtension: string;
  encode(batches: AsyncIterable<readonly OrderElement[]>): AsyncIterable<Buffer | string>;
}
