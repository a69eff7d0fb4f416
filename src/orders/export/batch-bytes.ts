/** The most bytes a UTF-16 code unit takes in UTF-8. */
const MOST_BYTES_PER_UNIT = 3;
/** Texts longer than this are handed to Buffer#write, whose call costs more than copying a short text here. */
const LONGEST_COPIED_TEXT = 32;
/** Integers up to this are written digit by digit, in 32-bit arithmetic; any other number through String. */
const MOST_DIGIT_BY_DIGIT = 0x7fffffff;
const LONGEST_INTEGER = 10;
const ZERO = 0x30;

function digitsOf(value: number): number {
  let digits = 1;
  for (let power = 10; value >= power && digits < LONGEST_INTEGER; power *= 10) digits += 1;
  return digits;
}

/** An export batch's bytes, written value by value into one buffer that grows as needed: integers digit by digit
 * and short ASCII texts character by character, so that most cells allocate nothing. */
export class BatchBytes {
  private bytes: Buffer;
  private length = 0;

  constructor(expectedBytes: number) {
    this.bytes = Buffer.allocUnsafe(Math.max(64, expectedBytes));
  }

  /** One ASCII character, by its code. */
  byte(code: number): void {
    this.reserve(1);
    this.bytes[this.length] = code;
    this.length += 1;
  }

  /** A number as `String(value)` writes it: a non-negative 32-bit integer digit by digit, any other through String. */
  number(value: number): void {
    if (!(value >= 0 && value <= MOST_DIGIT_BY_DIGIT && value === (value | 0))) {
      this.text(String(value));
      return;
    }
    this.reserve(LONGEST_INTEGER);
    let rest = value | 0;
    let position = this.length + digitsOf(rest);
    this.length = position;
    do {
      const tens = (rest / 10) | 0;
      position -= 1;
      this.bytes[position] = ZERO + rest - tens * 10;
      rest = tens;
    } while (rest !== 0);
  }

  /** A text in UTF-8. */
  text(value: string): void {
    this.reserve(value.length * MOST_BYTES_PER_UNIT);
    if (value.length <= LONGEST_COPIED_TEXT) {
      const start = this.length;
      for (let index = 0; index < value.length; index += 1) {
        const code = value.charCodeAt(index);
        if (code >= 0x80) {
          // Not ASCII: UTF-8 from Buffer#write, over what was copied so far.
          this.length = start + this.bytes.write(value, start);
          return;
        }
        this.bytes[start + index] = code;
      }
      this.length = start + value.length;
      return;
    }
    this.length += this.bytes.write(value, this.length);
  }

  /** What was written: a view of the buffer, not a copy. */
  written(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  private reserve(count: number): void {
    if (this.length + count <= this.bytes.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.length + count, this.bytes.length * 2));
    this.bytes.copy(larger, 0, 0, this.length);
    this.bytes = larger;
  }
}
