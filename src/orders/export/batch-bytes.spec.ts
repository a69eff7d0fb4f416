import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { BatchBytes } from './batch-bytes';

/** Room for one value only: every write past it makes the buffer grow. */
const TIGHT = 1;

describe('BatchBytes', () => {
  it('writes any number as String writes it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.maxSafeNat(), fc.maxSafeInteger(), fc.double(), fc.constant(-0), fc.constant(2 ** 60))),
        (numbers) => {
          const bytes = new BatchBytes(TIGHT);
          for (const value of numbers) {
            bytes.number(value);
            bytes.byte(0x2c);
          }
          expect(bytes.written().toString()).toBe(numbers.map((value) => `${String(value)},`).join(''));
        },
      ),
    );
  });

  it('writes any text as UTF-8, short or long, ASCII or not, lone surrogates as Buffer writes them', () => {
    // Code units either side of where UTF-8 takes a second byte and of the surrogates, any code point, and texts
    // either side of the length up to which a text is copied here rather than by Buffer#write.
    const near = (from: number, to: number) =>
      fc.integer({ min: from, max: to }).map((code) => String.fromCharCode(code));
    const unit = fc.oneof(
      near(0x70, 0x90),
      near(0xd7f0, 0xe010),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit, maxLength: 64 });
    fc.assert(
      fc.property(fc.array(text), (texts) => {
        const bytes = new BatchBytes(TIGHT);
        for (const each of texts) bytes.text(each);
        expect(bytes.written().equals(Buffer.concat(texts.map((each) => Buffer.from(each))))).toBe(true);
      }),
    );
  });

  it('keeps what was written when it grows, and gives a view of exactly what was written', () => {
    const bytes = new BatchBytes(TIGHT);
    const ascii = 'x'.repeat(1000);
    bytes.text(ascii);
    bytes.text('결제 완료');
    bytes.number(1234567890);
    expect(bytes.written().toString()).toBe(`${ascii}결제 완료1234567890`);
  });
});
