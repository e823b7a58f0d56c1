// What README.md ("What the store still learns") says padding costs: a blob of up to 16 KiB may
// grow to nearly twice its size (never more than twice, never below 512 bytes), a larger one by
// less than 16 KiB, and by under 1% from 1.6 MiB up. Checked at every size to 64 KiB and at
// sizes around every bucket edge beyond, to 64 MiB.

import Testing

@testable import MemoSync

@Suite("padding costs what the README says")
struct PaddingBoundsTests {
    private func expectBounds(_ count: Int) {
        let padded = BlobCipher.paddedLength(count)
        #expect(padded >= count && padded >= 512, "\(count) -> \(padded)")
        if count <= 16 * 1024 {
            #expect(padded < 2 * count || padded == 512, "\(count) -> \(padded): more than twice")
        } else {
            #expect(padded - count < 16 * 1024, "\(count) -> \(padded)")
        }
        if Double(count) >= 1.6 * 1024 * 1024 {
            #expect(Double(padded - count) < 0.01 * Double(count), "\(count) -> \(padded): 1% or more")
        }
    }

    @Test func everySizeTo64KiB() {
        for count in 1...(64 * 1024) { expectBounds(count) }
    }

    @Test func aroundEveryBucketEdgeTo64MiB() {
        var edge = 16 * 1024
        while edge <= 64 << 20 {
            for count in [edge - 1, edge, edge + 1] { expectBounds(count) }
            edge += 16 * 1024
        }
        // 1.6 MiB itself, where the 1% starts.
        expectBounds(Int((1.6 * 1024 * 1024).rounded(.up)))
    }
}
