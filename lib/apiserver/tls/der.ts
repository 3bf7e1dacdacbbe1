// Minimal DER (ASN.1 Distinguished Encoding Rules) writer: just what an X.509 v3 certificate needs.

/** A DER tag-length-value with the given tag byte. */
export function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let head: Buffer;
  if (n < 0x80) head = Buffer.from([tag, n]);
  else if (n < 0x100) head = Buffer.from([tag, 0x81, n]);
  else if (n < 0x10000) head = Buffer.from([tag, 0x82, n >> 8, n & 0xff]);
  else head = Buffer.from([tag, 0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([head, content]);
}

export const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Buffer): Buffer => tlv(0x04, content);
export const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));
/** `[n] EXPLICIT` wrapper of a constructed value. */
export const explicit = (n: number, content: Buffer): Buffer => tlv(0xa0 + n, content);

/** A non-negative INTEGER from big-endian bytes (a 0 byte is prepended when the top bit is set). */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

/** A BIT STRING whose content is whole bytes (unused bits 0), or the given count of unused trailing bits. */
export function bitString(content: Buffer, unusedBits = 0): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

/** An OBJECT IDENTIFIER from dotted form, e.g. `2.5.4.3`. */
export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [(parts[0] ?? 0) * 40 + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let v = Math.floor(part / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime before 2050, GeneralizedTime from 2050 on (RFC 5280 §4.1.2.5), to the second. */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${digits.slice(2)}Z`, 'ascii'))
    : tlv(0x18, Buffer.from(`${digits}Z`, 'ascii'));
}
