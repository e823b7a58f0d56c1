// Not a doc block: README ("Errors", `MemoLanguage.current`) promises that an app may set the
// language of the engine's texts. This target sees only what an app sees (its package name is
// not the package's), so these calls compile only while that stays true.
import Foundation
import MemoSync
import Testing

@Suite struct LanguageAsAnAppSetsIt {
    @Test func anAppChoosesTheLanguageOfTheEnginesErrors() {
        let error: any Error = NotebookError.memoInTrash(MemoID(high: 1, low: 2))
        // The process-wide setting: every test of the package expects English, so that is what
        // this sets (the other languages are asked for per task, below).
        MemoLanguage.current = .english
        #expect(MemoLanguage.current == .english)
        let english = MemoLanguage.$taskLanguage.withValue(.english) { error.localizedDescription }
        let korean = MemoLanguage.$taskLanguage.withValue(.korean) { error.localizedDescription }
        let japanese = MemoLanguage.$taskLanguage.withValue(.japanese) { error.localizedDescription }
        #expect(english.contains("trash"), "\(english)")
        #expect(korean.contains("휴지통"), "\(korean)")
        #expect(japanese != english && japanese != korean, "\(japanese)")
        #expect(MemoLanguage.allCases.map(\.rawValue) == ["en", "ko", "ja"])
    }
}
