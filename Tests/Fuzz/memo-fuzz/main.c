// memo-fuzz: the libFuzzer driver of MemoSync's fuzz targets (Tests/Fuzz/README.md).
//
//     memo-fuzz TARGET [libFuzzer options] [corpus directories]   fuzz TARGET
//     memo-fuzz TARGET FILE...                                    (build without libFuzzer) run files once
//     memo-fuzz --seeds TARGET DIRECTORY                          write TARGET's seeds into DIRECTORY
//
// The entry is C because SwiftPM renames the `main` of Swift executables. The fuzz build
// (`Tests/Fuzz/fuzz.sh`: `-sanitize=fuzzer,address` and `-DMEMOSYNC_LIBFUZZER`) links libFuzzer,
// whose `main` calls `LLVMFuzzerInitialize` and `LLVMFuzzerTestOneInput` below; the ordinary
// build compiles a `main` that runs files through a target once instead, so `swift build` needs
// no fuzzer runtime.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Tests/Fuzz/MemoFuzzChecks/FuzzEntryPoints.swift
extern int32_t memo_fuzz_select(const char *name);
extern void memo_fuzz_print_targets(void);
extern int32_t memo_fuzz_skip(const char *names);
extern int32_t memo_fuzz_test_one_input(const uint8_t *data, ptrdiff_t count);
extern ptrdiff_t memo_fuzz_seed_count(void);
extern ptrdiff_t memo_fuzz_seed(ptrdiff_t index, uint8_t *buffer, ptrdiff_t capacity);

/// Applies `MEMO_FUZZ_SKIP` (comma-separated kinds of check: general, round-trip, convergence).
static void skip_checks(void) {
    const char *names = getenv("MEMO_FUZZ_SKIP");
    if (names != NULL && memo_fuzz_skip(names) != 0) {
        fprintf(stderr, "memo-fuzz: MEMO_FUZZ_SKIP=%s: unknown kind of check (general, round-trip, convergence)\n", names);
        exit(2);
    }
}

static int usage(void) {
    fprintf(stderr,
        "usage: memo-fuzz TARGET [libFuzzer options] [corpus directories]\n"
        "       memo-fuzz --seeds TARGET DIRECTORY\n"
        "targets:\n");
    fflush(stderr);
    memo_fuzz_print_targets();
    return 2;
}

enum { seed_bytes_max = 1 << 20 };

static int write_seeds(const char *directory) {
    static uint8_t buffer[seed_bytes_max];
    ptrdiff_t count = memo_fuzz_seed_count();
    for (ptrdiff_t index = 0; index < count; index++) {
        ptrdiff_t length = memo_fuzz_seed(index, buffer, seed_bytes_max);
        if (length < 0) {
            fprintf(stderr, "memo-fuzz: seed %td is larger than %d bytes\n", index, seed_bytes_max);
            return 1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/seed-%03td", directory, index);
        FILE *file = fopen(path, "wb");
        if (file == NULL || fwrite(buffer, 1, (size_t)length, file) != (size_t)length || fclose(file) != 0) {
            perror(path);
            return 1;
        }
    }
    printf("memo-fuzz: wrote %td seeds to %s\n", count, directory);
    return 0;
}

#if !MEMOSYNC_LIBFUZZER
/// Runs the file at `path` through the selected target once.
static int run_file(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        return 1;
    }
    uint8_t *data = NULL;
    size_t count = 0, capacity = 0;
    for (;;) {
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            data = realloc(data, capacity);
            if (data == NULL) abort();
        }
        size_t read = fread(data + count, 1, capacity - count, file);
        if (read == 0) break;
        count += read;
    }
    fclose(file);
    memo_fuzz_test_one_input(data, (ptrdiff_t)count);
    free(data);
    printf("memo-fuzz: %s passed\n", path);
    return 0;
}
#endif

#if MEMOSYNC_LIBFUZZER
// libFuzzer's own `main` (linked whole by `-sanitize=fuzzer`) calls these.

/// Selects the target: `$MEMO_FUZZ_TARGET`, else the first argument, which is removed (libFuzzer
/// reads the rest) and exported in `MEMO_FUZZ_TARGET` for the processes `-fork` starts. With
/// `--seeds TARGET DIRECTORY`, writes the seeds and exits.
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    char **arguments = *argv;
    if (*argc == 4 && strcmp(arguments[1], "--seeds") == 0) {
        if (memo_fuzz_select(arguments[2]) != 0) exit(usage());
        exit(write_seeds(arguments[3]));
    }
    skip_checks();
    const char *name = getenv("MEMO_FUZZ_TARGET");
    if (name == NULL) {
        if (*argc < 2 || memo_fuzz_select(arguments[1]) != 0) exit(usage());
        setenv("MEMO_FUZZ_TARGET", arguments[1], 1);
        arguments[1] = arguments[0];
        *argc -= 1;
        *argv += 1;
        return 0;
    }
    if (memo_fuzz_select(name) != 0) exit(usage());
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return memo_fuzz_test_one_input(data, (ptrdiff_t)size);
}
#else
int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "--seeds") == 0) {
        if (memo_fuzz_select(argv[2]) != 0) return usage();
        return write_seeds(argv[3]);
    }
    if (argc < 2 || memo_fuzz_select(argv[1]) != 0) return usage();
    skip_checks();
    int status = 0;
    for (int index = 2; index < argc; index++) {
        if (argv[index][0] == '-') continue;
        status |= run_file(argv[index]);
    }
    return status;
}
#endif
