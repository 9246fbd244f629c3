/** lz4js ships no types; the one function the recorder uses (an LZ4 frame, as MCAP's `lz4` compression is). */
declare module "lz4js" {
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array | number[];
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array | number[];
}
