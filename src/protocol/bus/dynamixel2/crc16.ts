/**
 * CRC-16 of Dynamixel Protocol 2.0: polynomial 0x8005, initial value 0, no
 * reflection, no final XOR, over every byte from the header to the last
 * parameter (stuffed, as sent). ROBOTIS e-Manual, "CRC Calculation":
 * https://emanual.robotis.com/docs/en/dxl/crc/ — the golden packets of the
 * protocol page (test/protocol/bus/dynamixel2.golden.test.ts) check it.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

export function crc16Dynamixel(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let crc = 0;
  for (let i = from; i < to; i++) crc = ((crc << 8) ^ (TABLE[((crc >> 8) ^ (bytes[i] ?? 0)) & 0xff] ?? 0)) & 0xffff;
  return crc;
}
