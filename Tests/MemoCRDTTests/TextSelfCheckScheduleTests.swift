#if MEMOSYNC_INTERNAL_CHECKS
import Testing

@testable import MemoCRDT

/// When a text's debug self-check runs (README, "Tests"): after every mutation up to 256
/// operations, one in 8 up to 2,048, one in 1,024 beyond.
@Suite struct TextSelfCheckScheduleTests {
    private func checkedMutations(operationCount: Int, mutations: ClosedRange<Int>) -> Int {
        mutations.count { TextCRDT.selfChecks(afterMutation: $0, operationCount: operationCount) }
    }

    @Test func checksAreSpacedOutAsTheTextGrows() {
        #expect(checkedMutations(operationCount: 1, mutations: 1...4096) == 4096)
        #expect(checkedMutations(operationCount: 256, mutations: 1...4096) == 4096)
        #expect(checkedMutations(operationCount: 257, mutations: 1...4096) == 512)
        #expect(checkedMutations(operationCount: 2048, mutations: 1...4096) == 512)
        #expect(checkedMutations(operationCount: 2049, mutations: 1...4096) == 4)
        #expect(checkedMutations(operationCount: 1_000_000, mutations: 1...4096) == 4)
    }
}
#endif
