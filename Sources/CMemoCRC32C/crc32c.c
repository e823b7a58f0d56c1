// PLATFORM FILE: the CRC-32C instruction of x86-64 and 64-bit ARM (see CMemoCRC32C.h).
//
// One stream, eight bytes per instruction: the instruction's latency (three cycles on x86-64)
// bounds it near 8 bytes per 3 cycles, against about 1.8 GB/s for the Swift table read eight
// bytes at a time (BENCHMARKS.md, "The processor's CRC instruction").

#include "CMemoCRC32C.h"

#include <string.h>

#if defined(__x86_64__)

#include <cpuid.h>
#include <nmmintrin.h>

int memo_crc32c_hardware_available(void) {
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t memo_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    uint64_t wide = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = _mm_crc32_u64(wide, word);
        bytes += 8;
        count -= 8;
    }
    uint32_t narrow = (uint32_t)wide;
    while (count > 0) {
        narrow = _mm_crc32_u8(narrow, *bytes);
        bytes += 1;
        count -= 1;
    }
    return narrow;
}

#elif defined(__aarch64__)

#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#elif defined(__APPLE__)
#include <sys/sysctl.h>
#endif

int memo_crc32c_hardware_available(void) {
#if defined(__APPLE__)
    // The CRC instructions are optional before ARMv8.1; the system says whether this one has them.
    int value = 0;
    size_t size = sizeof(value);
    if (sysctlbyname("hw.optional.armv8_crc32", &value, &size, NULL, 0) != 0) return 0;
    return value != 0;
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
    return 0;
#endif
}

__attribute__((target("crc")))
uint32_t memo_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __crc32cb(crc, *bytes);
        bytes += 1;
        count -= 1;
    }
    return crc;
}

#else

int memo_crc32c_hardware_available(void) { return 0; }

uint32_t memo_crc32c_update(uint32_t crc, const uint8_t *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;  // never called: no instruction on this processor
}

#endif
