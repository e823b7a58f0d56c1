import Foundation
import MemoFuzzChecks
import Testing

/// The fuzz targets' checks (Tests/Fuzz/README.md) on every fixture in
/// `Tests/Fixtures/fuzz/<target>/` (inputs that once crashed a fuzzer, kept as regressions) and
/// on every seed: each must pass, exactly as `memo-fuzz` runs it.
@Suite struct FuzzFixtureTests {
    /// The folder of `target`'s fixtures.
    private static func folder(of target: FuzzTarget) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/\(target.rawValue)")
    }

    /// The fixture files of `target`: binary inputs, or `.hex` files of hexadecimal digits. A
    /// missing or unreadable folder throws (it is not an empty one).
    private static func fixtures(of target: FuzzTarget) throws -> [(name: String, bytes: [UInt8])] {
        let folder = folder(of: target)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
        return try names.map { name in
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            guard name.hasSuffix(".hex") else { return (name, [UInt8](data)) }
            let digits = String(decoding: data, as: UTF8.self).filter(\.isHexDigit)
            let hexDigits = Array(digits)
            let bytes = try stride(from: 0, to: hexDigits.count - 1, by: 2).map { index in
                guard let byte = UInt8(String(hexDigits[index...index + 1]), radix: 16) else { throw FixtureError(name: name) }
                return byte
            }
            return (name, bytes)
        }
    }

    private struct FixtureError: Error {
        var name: String
    }

    /// Every target has a folder of fixtures, and at least one in it: a missing folder (a target
    /// added without one, or a folder renamed) would otherwise pass as "no fixture failed".
    @Test func everyTargetHasFixtures() {
        let lacking = FuzzTarget.allCases.filter { target in
            ((try? Self.fixtures(of: target)) ?? []).isEmpty
        }
        #expect(lacking.isEmpty, "no fixtures in Tests/Fixtures/fuzz/ for \(lacking.map(\.rawValue).joined(separator: ", "))")
    }

    @Test(arguments: FuzzTarget.allCases)
    func fixturesPassTheirChecks(target: FuzzTarget) throws {
        let fixtures = try Self.fixtures(of: target)
        #expect(!fixtures.isEmpty, "\(Self.folder(of: target).path) holds no fixture")
        for fixture in fixtures {
            do {
                try target.check(fixture.bytes)
            } catch {
                Issue.record("\(target.rawValue)/\(fixture.name): \(error)")
            }
        }
    }

    /// The listing cache target's seeds and its honest fixture decode (its checks then run on a
    /// cache, not only on refusals), and the fixtures named "refused-" are refused.
    @Test func listingCacheInputsDecodeOrAreRefusedAsNamed() throws {
        let seeds = FuzzTarget.listingCache.seeds
        #expect(seeds.count == 6 && seeds.allSatisfy(FuzzTarget.listingCacheDecodes))
        let fixtures = try Self.fixtures(of: .listingCache)
        #expect(fixtures.count == 3)
        for fixture in fixtures {
            #expect(FuzzTarget.listingCacheDecodes(fixture.bytes) == !fixture.name.hasPrefix("refused-"), "\(fixture.name)")
        }
    }

    /// The state list target's seeds (the honest list in every mode) decode over the fuzz world's
    /// state file, so its checks run on a library opened from a list, not only on refusals; its
    /// fixtures decode, or are refused when named "refused-".
    @Test func stateListInputsDecodeOrAreRefusedAsNamed() throws {
        let seeds = FuzzTarget.stateList.seeds
        #expect(seeds.count == 3 && seeds.allSatisfy(FuzzTarget.stateListDecodes))
        let fixtures = try Self.fixtures(of: .stateList)
        #expect(!fixtures.isEmpty)
        for fixture in fixtures {
            #expect(FuzzTarget.stateListDecodes(fixture.bytes) == !fixture.name.hasPrefix("refused-"), "\(fixture.name)")
        }
    }

    /// The state targets start from states of every version a writer makes today: version 2
    /// (no history) and version 4 (a text or notebook keeping deleted content, issue 27), so the
    /// fuzzer reaches the history section's decoder from its first run; their fixtures hold a
    /// version 3 state (`issue27-version3-state.hex`), which writers no longer make. A raw input
    /// is the mode byte, then the envelope: "ms", then kind << 4 | version.
    @Test(arguments: [FuzzTarget.textState, .notebookState])
    func stateSeedsHoldVersionsTwoAndFourAndFixturesThree(target: FuzzTarget) throws {
        func rawVersions(_ inputs: [[UInt8]]) -> Set<UInt8> {
            Set(inputs.filter { $0.count > 4 && $0[0] == 0 && $0[1] == 0x6D && $0[2] == 0x73 }.map { $0[3] & 0x0F })
        }
        let versions = rawVersions(target.seeds)
        #expect(versions.isSuperset(of: [2, 4]), "\(target.rawValue): raw seeds of versions \(versions.sorted())")
        let fixtureVersions = rawVersions(try Self.fixtures(of: target).map(\.bytes))
        #expect(fixtureVersions.contains(3), "\(target.rawValue): raw fixtures of versions \(fixtureVersions.sorted())")
    }

    @Test(arguments: FuzzTarget.allCases)
    func seedsPassTheirChecks(target: FuzzTarget) throws {
        let seeds = target.seeds
        #expect(!seeds.isEmpty)
        for (index, seed) in seeds.enumerated() {
            do {
                try target.check(seed)
            } catch {
                Issue.record("\(target.rawValue) seed \(index): \(error)")
            }
        }
    }
}
