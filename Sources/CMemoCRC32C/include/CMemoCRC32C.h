// The processor's CRC-32C instruction, for MemoCRDT's `CRC32C` (FORMAT.md "The envelope").
//
// PLATFORM FILE: x86-64 (SSE 4.2 `crc32`) and 64-bit ARM (`crc32c`), each asked at run time
// whether the processor has it; any other processor, or one without it, reports 0 and MemoCRDT
// keeps its table (the same CRC, about a fifth as fast).

#ifndef CMEMOCRC32C_H
#define CMEMOCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// 1 when `memo_crc32c_update` may be called on this processor, else 0.
int memo_crc32c_hardware_available(void);

/// The CRC-32C register `crc` (reflected, not inverted: start from 0xFFFFFFFF and invert at the
/// end) after `count` bytes at `bytes`. Only when `memo_crc32c_hardware_available()` is 1.
uint32_t memo_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count);

#endif
