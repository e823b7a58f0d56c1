// memo-bench: replays editing traces on MemoCRDT's TextCRDT and reports timings, sizes and
// memory as one JSON line per trace. Run `memo-bench --help` for usage.

import Foundation

exit(await BenchRunner.main(arguments: Array(CommandLine.arguments.dropFirst())))
