// The Japanese (日本語) catalog of MemoSync's texts: the engine's error descriptions ("error."),
// the `memo` command line's messages ("cli.") and help pages ("help."). Every key is in
// every catalog with the same {placeholders} (MemoCLITests/CatalogTests checks it); see
// MemoStrings.swift.

extension MemoStrings {
    /// The Japanese (日本語) texts.
    static let japanese: [String: String] = [
        // MARK: error
        "error.BlobStoreError.encrypted.suggestion": "ストアのパスフレーズを入力してください。",
        "error.BlobStoreError.denied.suggestion": "ストアの認証情報とこのデバイスの日付と時刻を確認してから、もう一度同期してください。",
        "error.BlobStoreError.retryLater.suggestion": "しばらくしてから、もう一度同期してください。",
        "error.BlobStoreError.server.suggestion": "ストアのアドレス、バケットまたはフォルダーを確認してから、もう一度同期してください。",
        "error.BlobStoreError.full.suggestion": "同期ストアの空き容量を増やしてから、もう一度同期してください。",
        "error.BlobStoreError.notFound.suggestion": "もう一度同期してください。",
        "error.BlobStoreError.unavailable.suggestion": "ストアへの接続を確認してから、もう一度同期してください。",
        "error.DecodingError.checksumMismatch.reason": "破損しています。",
        "error.DecodingError.notMemoSync.reason": "ここで想定している種類の MemoSync のデータではありません。",
        "error.DecodingError.tooLarge.reason": "MemoSync が読み込める大きさを超えています。",
        "error.DecodingError.truncated.reason": "不完全です。まだ書き込み中かダウンロード中か、書き込み側が途中で止まりました。",
        "error.DecodingError.truncated.suggestion": "しばらくしてからもう一度同期してください。",
        "error.DecodingError.unsupportedVersion.reason": "より新しい MemoSync が書き込んだデータです。",
        "error.DecodingError.unsupportedVersion.suggestion": "アプリをアップデートしてください。",
        "error.DiskError.full.suggestion": "ディスクの空き容量を増やしてください(それまで未保存の編集はメモリーに保持されます)。",
        "error.DiskError.io.suggestion": "もう一度試し、失敗が続く場合はディスクを確認してください。",
        "error.DiskError.locked.suggestion": "このライブラリを使っているほかのアプリやウインドウを閉じてください。",
        "error.DiskError.tooLarge.suggestion": "MemoSync はこれほど大きなファイルを書かないため、ライブラリフォルダーのコピーを取ってからバックアップでそのファイルを復元してください。",
        "error.DiskError.unavailable.suggestion": "フォルダーが存在し、アプリが使用できることを確認してください。",
        "error.EncryptionError.keyBlobMissing.suggestion": "ストアをまだ開けるデバイスを先に同期するか、このライブラリの暗号化を明示的にオフにしてください。",
        "error.EncryptionError.currentPassphrase.suggestion": "ストアの現在のパスフレーズを入力してください。",
        "error.EncryptionError.unknownKeyBlobVersion.suggestion": "アプリをアップデートしてください。",
        "error.EncryptionError.wrongPassphrase.suggestion": "パスフレーズを確認して、もう一度試してください。",
        "error.NotebookError.memoInTrash.reason": "ゴミ箱内のメモは編集できません。",
        "error.NotebookError.memoInTrash.suggestion": "先にゴミ箱から復元してください。",
        "error.NotebookError.memoNotFound.suggestion": "メモの一覧を再読み込みしてください。",
        "error.ReplicaModel.notListed.description": "同期でストアの一覧を取得できませんでした。",
        "error.ReplicaError.closed.suggestion": "ライブラリをもう一度開いてください。",
        "error.ReplicaError.invalidHistoryRetention.suggestion": "1 から {max} までの日数か、forever を指定してください。",
        "error.ReplicaError.invalidHistoryRetention.what": "履歴の保持期間 {days} 日は受け付けられないため、何も変更しませんでした",
        "error.ReplicaError.encryptedLibrary.suggestion": "パスフレーズでストアを開くか、ライブラリの暗号化を明示的にオフにしてください。",
        "error.ReplicaError.corruptLibrary.suggestion": "ライブラリのフォルダーはそのままにして、バックアップから復元するか、新しいライブラリで同期してください。",
        "error.ReplicaError.syncInProgress.suggestion": "実行中の同期が終わるまでお待ちください。",
        "error.ReplicaError.unknownLibraryVersion.reason": "ファイル「{file}」は種類 {kind}、形式バージョン {version} で、このバージョンでは読み込めません。",
        "error.ReplicaError.unknownLibraryVersion.suggestion": "アプリをアップデートしてください。",
        "error.SyncProblem.suggestion": "しばらくしてからもう一度同期してください。",
        "error.TextError.clockExhausted.reason": "ほかの端末からの変更が MemoSync の上限に達した時刻値を持っています。編集でこの値に達する端末はなく、新しい編集をその後に並べることができません。",
        "error.TextError.clockExhausted.suggestion": "必要なテキストを新しいライブラリにコピーしてください。このような変更を送れるのはストアに書き込める人だけで、暗号化されたストアにはほかの人は書き込めません。",
        "error.TextError.doesNotFit.suggestion": "メモのテキストを読み直してから、もう一度編集してください。",
        "error.TextError.inconsistent.reason": "ほかの端末が、正しいレプリカでは起こりえない変更を送ってきました。",
        "error.TextError.offsetInsideSurrogatePair.reason": "UTF-16 の位置が 2 つのコード単位からなる文字(絵文字など)を分割しています。",
        "error.TextError.outOfBounds.reason": "位置を計算した後にテキストが変わったか、別のテキストで計算した位置です。",
        "error.TextError.tooLarge.reason": "メモが MemoSync の上限に達しました。",
        "error.TextError.tooLarge.suggestion": "メモを小さな複数のメモに分けてください。",
        "error.TextError.unknownAnchor.reason": "位置が指している文字がこのテキストにありません。",
        "error.sentence": "{what}。",
        "error.sentenceWithDetail": "{what}: {detail}。",
        "error.cause.permissionDenied": "アクセス権がありません",
        "error.cause.inTheWay": "同じ名前のファイルが邪魔をしています",
        "error.cause.missing": "フォルダーまたはファイルがありません",
        "error.cause.noSpace": "空き容量がありません",
        "error.cause.readOnly": "読み取り専用です",
        "error.cause.deviceFailed": "デバイスが読み書きに失敗しました",
        "error.cause.stillBeingWritten": "ファイルはまだ書き込み中です",
        "error.cause.closed": "ライブラリは閉じています",
        "error.cause.cannotConnect": "サーバーに接続できません",
        "error.cause.hostNotFound": "サーバー名が見つかりません",
        "error.cause.offline": "このデバイスはネットワークに接続されていません",
        "error.cause.serverBusy": "サーバーが混み合っています",
        "error.cause.badAnswer": "サーバーの応答を読み取れません",
        "error.cause.badAddress": "ストアのアドレスが正しくありません",
        "error.cause.insecure": "パスワードが暗号化されない http で送られるため、https が必要です",
        "error.TextError.clockExhausted.what": "メモをこれ以上変更できません",
        "error.TextError.doesNotFit.what": "編集がテキストに合いません",
        "error.TextError.inconsistent.what": "メモの変更内容に矛盾があります",
        "error.TextError.tooLarge.what": "メモが大きすぎて変更できません",
        "error.TextError.range.detail": "範囲 {lower}..<{upper} がテキスト(長さ {length})の外にあります",
        "error.TextError.offset.detail": "位置 {offset} がテキスト(長さ {length})の外にあります",
        "error.TextError.surrogate.detail": "UTF-16 の位置 {offset} がサロゲートペアの途中です",
        "error.NotebookError.memoNotFound.what": "メモが見つかりません(削除された可能性があります)",
        "error.NotebookError.memoExists.what": "メモはすでにあります",
        "error.NotebookError.memoInTrash.what": "メモはゴミ箱にあります",
        "error.NotebookError.memoNotInTrash.what": "メモはゴミ箱にありません",
        "error.NotebookError.text.what": "メモを変更できませんでした",
        "error.NotebookError.invalidDelta.what": "ほかのデバイスからの変更内容に矛盾があります",
        "error.NotebookError.corruptMemo.what": "メモを読み込めません",
        "error.NotebookError.nothingToUndo.what": "このメモには取り消すこともやり直すこともありません",
        "error.NotebookError.history.what": "メモの以前のバージョンを表示できません",
        "error.NotebookError.history.notRetained.detail": "その一部が保存期間より前に削除されました",
        "error.NotebookError.history.notHeld.detail": "この端末にはまだありません",
        "error.NotebookError.history.notRetained.reason": "削除されたテキストは保存期間のあいだだけ保持されます。このバージョンの一部はそれより前に削除されました。",
        "error.NotebookError.history.notHeld.reason": "この端末にはまだメモのそのバージョンがありません。",
        "error.DecodingError.any.what": "データを読み込めませんでした",
        "error.ReplicaError.closed.what": "ライブラリは閉じています",
        "error.ReplicaError.encryptedLibrary.what": "このライブラリは暗号化されていてストアの暗号化を通してのみ同期するため、何も同期しませんでした",
        "error.ReplicaError.corruptLibrary.what": "ライブラリファイル「{file}」が壊れています",
        "error.ReplicaError.noSyncInProgress.what": "進行中の同期はありません",
        "error.ReplicaError.syncInProgress.what": "すでに同期中です",
        "error.ReplicaError.unknownLibraryVersion.what": "このライブラリは新しいバージョンの MemoSync で書かれています",
        "error.ReplicaModel.save.what": "保存できませんでした",
        "error.ReplicaModel.sync.what": "同期できませんでした",
        "error.ReplicaModel.unfinished.what": "同期が完了しませんでした",
        "error.SyncProblem.list.what": "同期ストアの一覧を取得できませんでした",
        "error.SyncProblem.read.what": "同期ストアからファイルを読み込めませんでした",
        "error.SyncProblem.write.what": "同期ストアにファイルを書き込めませんでした",
        "error.SyncProblem.delete.what": "同期ストアから古いファイルを削除できませんでした",
        "error.SyncProblem.local.what": "このデバイスの変更を同期用に準備できませんでした",
        "error.BlobStoreError.notFound.what": "同期ストアにファイルがもうありません",
        "error.BlobStoreError.invalidKey.what": "同期ストアがファイル名を拒否しました",
        "error.BlobStoreError.full.what": "同期ストアがいっぱいです",
        "error.BlobStoreError.unavailable.what": "同期ストアに接続できません",
        "error.BlobStoreError.io.what": "同期ストアでエラーが起きました",
        "error.BlobStoreError.tooLarge.what": "同期ストアのファイルが大きすぎます",
        "error.BlobStoreError.size": "{size} バイトで上限の {limit} バイトを超えています",
        "error.BlobStoreError.cancelled.what": "同期はキャンセルされました",
        "error.BlobStoreError.undecryptable.what": "同期ストアのファイルを受け付けませんでした",
        "error.BlobStoreError.encrypted.what": "同期ストアは暗号化されているため、パスフレーズでのみ同期できます",
        "error.BlobStoreError.denied.what": "同期ストアがこのデバイスの認証情報を拒否しました",
        "error.BlobStoreError.server.what": "同期ストアがエラーを返しました",
        "error.BlobStoreError.retryLater.what": "同期ストアが混み合っています",
        "error.BlobStoreError.notFound.detail": "ストアにファイルがもうありません",
        "error.BlobStoreError.invalidKey.detail": "ストアがファイル名を拒否しました",
        "error.BlobStoreError.full.detail": "ストアがいっぱいです",
        "error.BlobStoreError.unavailable.detail": "ストアに接続できません",
        "error.BlobStoreError.io.detail": "ストアでエラーが起きました",
        "error.BlobStoreError.tooLarge.detail": "ファイルが大きすぎます({size} バイト、上限 {limit} バイト)",
        "error.BlobStoreError.cancelled.detail": "同期はキャンセルされました",
        "error.BlobStoreError.undecryptable.detail": "ファイルを復号できません",
        "error.BlobStoreError.encrypted.detail": "ストアは暗号化されています",
        "error.BlobStoreError.denied.detail": "サーバーが認証情報を拒否しました({code})",
        "error.BlobStoreError.server.detail": "サーバーが HTTP {status} {code} を返しました",
        "error.BlobStoreError.retryLater.detail": "{seconds} 秒後にもう一度試すよう求めています",
        "error.EncryptionError.wrongPassphrase.what": "このストアのパスフレーズではありません",
        "error.EncryptionError.passphraseRequired.what": "同期ストアは暗号化されているため、同期するにはパスフレーズが必要です",
        "error.EncryptionError.passphraseChanged.what": "ほかのデバイスでストアのパスフレーズが変更されました",
        "error.EncryptionError.notEncrypted.what": "同期ストアは暗号化されていません",
        "error.EncryptionError.alreadyEncrypted.what": "同期ストアはすでに暗号化されています",
        "error.EncryptionError.keyBlobMissing.what": "同期ストアに鍵ブロブがなく、暗号化されたこのライブラリにも戻す鍵ブロブがないため、何も同期しませんでした",
        "error.EncryptionError.failed.what": "暗号化の処理に失敗しました",
        "error.EncryptionError.damagedKeyBlob.detail": "ストアの鍵ブロブが壊れています",
        "error.EncryptionError.unknownKeyBlobVersion.detail": "ストアの鍵ブロブのバージョン {version} をこのアプリは知りません",
        "error.EncryptionError.unacceptableParameters.detail": "鍵導出のパラメーターを受け付けられません",
        "error.EncryptionError.platform.detail": "システムの暗号機能が失敗しました",
        "error.DiskError.unavailable.what": "ライブラリフォルダーを使えません",
        "error.DiskError.locked.what": "ほかのアプリがライブラリを使用中です",
        "error.DiskError.alreadyOpen.what": "このアプリでライブラリはすでに開いています",
        "error.DiskError.alreadyOpen.suggestion": "このアプリですでに開いたライブラリを使うか、先に閉じてください。",
        "error.DiskError.full.what": "ディスクがいっぱいです",
        "error.DiskError.io.what": "ライブラリを読み書きできませんでした",
        "error.DiskError.tooLarge.what": "ライブラリファイル {file} が大きすぎて読み込めないため、何も変更しませんでした",
        "error.DiskError.tooLarge.size": "{size} バイトで、MemoSync が読む {limit} バイトを超えています",
        "error.DiskError.unavailable.detail": "ライブラリフォルダーを使えません",
        "error.DiskError.locked.detail": "ほかのアプリがライブラリを使用中です",
        "error.DiskError.alreadyOpen.detail": "このアプリでライブラリはすでに開いています",
        "error.DiskError.full.detail": "ディスクがいっぱいです",
        "error.DiskError.io.detail": "ディスクでエラーが起きました",
        "error.DiskError.tooLarge.detail": "ライブラリファイル {file} が大きすぎます",
        "error.StoreLocationError.what": "同期ストアを使えません",
        // MARK: cli
        "cli.storeKind.s3": "S3 バケット {location}",
        "cli.storeKind.webDAV": "WebDAV フォルダー {location}",
        "cli.andMore": "ほか {count} 件",
        "cli.count.blob.one": "{count} 個のブロブ",
        "cli.count.blob.other": "{count} 個のブロブ",
        "cli.count.byte.one": "{count} バイト",
        "cli.count.byte.other": "{count} バイト",
        "cli.count.character.one": "{count} 文字",
        "cli.count.character.other": "{count} 文字",
        "cli.count.day.one": "{count} 日",
        "cli.count.day.other": "{count} 日",
        "cli.count.file.one": "{count} 個のファイル",
        "cli.count.file.other": "{count} 個のファイル",
        "cli.count.memo.one": "{count} 件のメモ",
        "cli.count.memo.other": "{count} 件のメモ",
        "cli.count.operation.one": "{count} 個の操作",
        "cli.count.operation.other": "{count} 個の操作",
        "cli.count.storeEntry.one": "{count} 個のストア項目",
        "cli.count.storeEntry.other": "{count} 個のストア項目",
        "cli.count.storeError.one": "{count} 件のストアのエラー",
        "cli.count.storeError.other": "{count} 件のストアのエラー",
        "cli.count.storeOperation.one": "{count} 回のストア操作",
        "cli.count.storeOperation.other": "{count} 回のストア操作",
        "cli.deleted": "{id} {title} をゴミ箱に移動しました('memo restore {id}' で元に戻せます)。",
        "cli.demo.bobGets": "ボブが同期して受け取ります({read}を読み込み、{applied}を適用):",
        "cli.demo.byHand": "手で試すには:",
        "cli.demo.converged": "収束: はい",
        "cli.demo.diverged": "収束: いいえ",
        "cli.demo.failed": "デモが失敗しました: {error}",
        "cli.demo.folder": "共有フォルダー(Dropbox、iCloud Drive、Syncthing がそろえてくれるフォルダーなら何でも): {path}",
        "cli.demo.notAFolder": "{path} はフォルダーではなくファイルです。新しいフォルダーか空のフォルダーを指定してください。",
        "cli.demo.notItsFolder": "{path} にはデモが作っていないファイルがあります。新しいフォルダーか空のフォルダーを指定してください(デモが置き換えるのは以前のデモが作ったものだけです)。",
        "cli.demo.unusableFolder": "デモは {path} を使えません: {error}",
        "cli.demo.missing": "(ありません)",
        "cli.demo.published": "{written}を公開、{read}を読み込み",
        "cli.demo.publishedApplied": "{written}を公開、{read}を読み込み、{applied}を適用",
        "cli.demo.readApplied": "{read}を読み込み、{applied}を適用",
        "cli.demo.step1": "2 台の端末、それぞれ自分のライブラリを持ちます(このセッションの新しいレプリカ ID 付き):",
        "cli.demo.step2": "アリスがメモを書いて同期します。次のコマンドと同じです:",
        "cli.demo.step3": "2 人ともオフラインで同じメモを編集します:",
        "cli.demo.step4": "フォルダーを通じて順に同期します(どの順でも結果は同じです):",
        "cli.demo.step5": "2 人とも、両方の編集を含む同じメモを持っています:",
        "cli.demo.title": "MemoSync のデモ: {path}",
        "cli.demo.usage": "使い方: memo demo [--dir DIR]",
        "cli.editorExited": "終了ステータス {status} で終了しました",
        "cli.editorSignalled": "シグナル {signal} で停止しました",
        "cli.error.alreadyInTrash": "メモ {id} はすでにゴミ箱にあります",
        "cli.error.ambiguousID": """
            ID '{id}' はあいまいです。{count} 件のメモがこれで始まります。桁を増やしてください:
            {list}
            """,
        "cli.error.argumentNotUTF8": "引数 {index} は正しい UTF-8 ではありません。memo はテキストをそのまま保存するため、受け付けません",
        "cli.error.cannotCreateFolder": "フォルダー {path} を作成できません: {error}",
        "cli.error.cannotCreateTemporary": "{path} に一時ファイルを作成できません: {error}",
        "cli.error.cannotOpenLibrary": "{path} のライブラリを開けません: {error}",
        "cli.error.cannotRead": "{path} を読み込めません: {error}",
        "cli.error.cannotReadInput": "標準入力を読み込めません: {error}",
        "cli.error.cannotReadLibrary": "{path} のライブラリを読み込めません: {error}",
        "cli.error.cannotReadPassphraseFile": "パスフレーズのファイル {path} を読み込めません",
        "cli.error.cannotRememberKey": "ストアの鍵を {path} に保存できません",
        "cli.error.cannotSave": "{path} のライブラリを保存できません: {error}。このコマンドの変更は保存されていません。原因を解消してからもう一度実行してください",
        "cli.error.cannotUseBucket": "S3 バケット {location} を使えません: {error}",
        "cli.error.cannotUseStore": "ストアのフォルダー {path} を使えません: {error}",
        "cli.error.cannotUseWebDAVFolder": "WebDAV フォルダー {location} を使えません: {error}",
        "cli.error.cannotWrite": "{path} に書き込めません: {error}",
        "cli.error.cannotWriteOutput": "標準出力に書き込めません: {error}",
        "cli.error.completionNeedsShell": "'completion' にはシェル名が必要です: bash、zsh、fish",
        "cli.error.couldNotSync": "{path} と同期できませんでした: {error}。何も読み書きしていません",
        "cli.error.deleteDoesNotFit": "位置 {offset} から {count}を削除できません{which}。テキストは {length}(Unicode スカラー)しかありません。何も変更していません",
        "cli.error.editedNotUTF8": "編集したテキストが正しい UTF-8 ではありません。メモは変更されていません{kept}",
        "cli.error.editedUnreadable": "編集したファイル {path} を読み込めません: {error}。メモは変更されていません{kept}",
        "cli.error.editorEmpty": "テキストが空なので、メモを作成しませんでした('memo new \"\"' で空のメモを作成できます)",
        "cli.error.editorFailed": "エディター '{command}' が{how}。メモは変更されていません{kept}",
        "cli.error.editorNotStarted": "エディター '{command}' を起動できません: {error}",
        "cli.error.emptyPath": "空のパスが指定されました",
        "cli.error.encryptionFailed": "ストア {path} の暗号化の処理に失敗しました: {error}",
        "cli.error.decryptKeysNotDeleted": "{path} の暗号化をオフにできません: 鍵ブロブを削除できませんでした: {error}。このライブラリとストアは暗号化されたままで、失われたものはありません。'memo store decrypt' をもう一度実行してください",
        "cli.error.decryptLibraryStaysEncrypted": "このライブラリの暗号化をオフにできません: {error}。ストアの鍵ブロブは削除されましたが、ライブラリは暗号化されたままで(次の同期が鍵ブロブを戻します)、失われたものはありません。'memo store decrypt' をもう一度実行してください",
        "cli.error.decryptNotPublished": "このライブラリの暗号化はオフになりましたが、メモを {path} にプレーンテキストで公開できませんでした: {error}。公開するには 'memo sync' を実行してください",
        "cli.error.exportAllNoID": "'export --all DIR' はすべてのメモを書き出します。メモの ID は取りません",
        "cli.error.exportAllNoOutput": "--output は 1 つのファイルを指します。--all ではフォルダーだけを指定してください",
        "cli.error.exportFailed": "{path} に書き込めません: {error}。何も変更していません(既にあったファイルは内容がそのままで、新しいファイルは残っていません)",
        "cli.error.exportWouldReplace": """
            {path} の {count}が上書きされます。何も書き込んでいません(上書きするには --force):
            {files}
            """,
        "cli.error.fileNotUTF8": "{path} は UTF-8 のテキストではありません。何も変更していません",
        "cli.error.forceOnlyAll": "--force は 'export --all DIR' でのみ使えます",
        "cli.error.helpManAlone": "'help --man' はコマンド名を取りません。man ページにすべてのコマンドが載っています",
        "cli.error.helpOneCommand": "'help' が取るコマンド名は 1 つまでです",
        "cli.error.historyUnreadable": "取り消し履歴 {path} を読み込めません({error})。削除すると新しく始まります",
        "cli.history.notKeptAside": "正しい JSON ではなく、{kept} として別に保管することもできませんでした: {error}",
        "cli.error.importNeedsPaths": "'import' には読み込むファイルかフォルダーが必要です",
        "cli.error.importRefused": """
            {count}を読み込めないため、何も読み込んでいません:
            {files}
            """,
        "cli.error.inputEmpty": "標準入力が空なので、メモを作成しませんでした('memo new \"\"' で空のメモを作成できます)",
        "cli.error.inputNotUTF8": "標準入力が UTF-8 のテキストではありません。何も変更していません",
        "cli.error.insertDoesNotFit": "位置 {offset} に挿入できません{which}。テキストは {length}(Unicode スカラー)しかありません。何も変更していません",
        "cli.error.invalidStore": "ストア {store} を使えません: {error}",
        "cli.error.json": "JSON を書き出せません: {error}",
        "cli.error.libraryBusy": "別の memo コマンド(同期か変更)が {seconds} 秒間 {path} のライブラリを使用しています。終わってからもう一度試してください",
        "cli.error.memoInTrash": "メモ {id} はゴミ箱にあります。先に復元してください('memo restore {id}')",
        "cli.error.needsID": "'{command}' にはメモの ID が必要です('memo list' で確認できます)",
        "cli.error.newPassphraseNeeded": "新しいパスフレーズが必要です。{variable}、パスフレーズのファイル、またはターミナルで入力してください",
        "cli.error.noArguments": "'{command}' は引数を取りません(指定値 '{argument}'。'memo help {command}' を参照)",
        "cli.error.noCommand": "コマンドがありません('memo help' でコマンドの一覧を表示できます)",
        "cli.error.noEditor": "エディターがありません。VISUAL か EDITOR を設定するか、--text TEXT、--text-file PATH(または --insert/--delete)でテキストを指定してください",
        "cli.error.noHome": "ホームフォルダーが見つかりません。HOME を設定するか、--library PATH か MEMO_LIBRARY でライブラリのフォルダーを指定してください",
        "cli.error.libraryIsAFile": "{path} はファイルで、ライブラリのフォルダではありません。--library にはライブラリのフォルダ(または 'memo new' で作る新しいフォルダのパス)を指定してください",
        "cli.error.libraryNotPermitted": "ライブラリのフォルダ {path} を読み込めません: アクセス権がありません。所有者とアクセス権を確認するか(ls -ld {path})、所有者として memo を実行してください",
        "cli.error.libraryReadOnly": "ライブラリのフォルダ {path} に書き込めません: 読み取り専用のファイルシステムにあります (読み込めますが変更できません)。読み書きできるようにマウントするか、書き込めるディスクのライブラリを指定してください",
        "cli.error.libraryNotWritable": "ライブラリのフォルダ {path} に書き込めません: アクセス権がありません (読み込めますが変更できません)。所有者とアクセス権を確認するか(ls -ld {path})、所有者として memo を実行してください",
        "cli.error.noLibrary": "{path} にライブラリがありません。'memo new' で作成するか、'memo sync --store PATH' でストアから取得してください",
        "cli.error.noMatchingID": "'{id}' で始まる ID のメモはありません('{list}' で ID を確認できます)",
        "cli.error.noStoreYet": "まだストアのフォルダーがありません。'memo sync --store PATH'(端末間で共有するフォルダー、s3://BUCKET/PREFIX、または WebDAV の https:// URL)を一度実行すれば、以降の同期はそれを覚えています",
        "cli.error.noSuchMemo": "メモ {id} はありません",
        "cli.error.notAFolder": "{path} は存在しますが、フォルダーではありません",
        "cli.error.notAnID": "'{id}' はメモの ID ではありません。ID は最大 32 桁の 16 進数(0-9、a-f)です。'{list}' で確認できます",
        "cli.error.notInTrash": "メモ {id} はゴミ箱にありません",
        "cli.error.notWholeNumber": "{what}は 0 以上の整数(文字数)でなければなりません(指定値 '{value}')",
        "cli.error.badPort": "{what}には 0 から 65535 までのポート番号が必要です(指定値 '{value}')",
        "cli.error.badSyncInterval": "--sync-interval には 1 から 86400 までの整数の秒数が必要です(指定値 '{value}')",
        "cli.error.listenIPv6": "memo serve は 127.0.0.1 のような IPv4 アドレスでのみ待ち受けます(指定値 '{value}')",
        "cli.error.nothingToRedo": "メモ {id} にやり直せる編集はありません",
        "cli.error.nothingToUndo": "メモ {id} に取り消せる編集はありません。'memo undo' はこの端末で memo が行った編集を取り消します",
        "cli.error.atOrBefore": "memo show には --at VERSION か --before TIME のどちらか一方を指定します",
        "cli.error.keepValue": "--keep には 1 から {max} までの日数か forever を指定します(\"{value}\" ではなく)",
        "cli.historyKept": "削除されたテキストを{period}保持します。",
        "cli.historyDropped": "それより古い削除されたテキスト {count}を破棄しました。",
        "cli.period.forever": "無期限に",
        "cli.period.days": "{days}間",
        "cli.error.notATime": "'{time}' は時刻ではありません。memo が表示する形式(2026-11-20 18:30 または 2026-11-20)か ISO 8601(2026-11-20T18:30:00Z)で指定してください",
        "cli.error.noVersionBefore": "メモ {id} に {time} より前に作られたバージョンはありません。'memo history {id}' で一覧を表示できます",
        "cli.error.diffArguments": "memo diff にはメモ ID と最大 2 つのバージョンを指定します: memo diff ID [FROM [TO]]",
        "cli.error.revertArguments": "memo revert にはメモ ID とバージョンを 1 つ指定します: memo revert ID VERSION",
        "cli.error.notAVersion": "'{version}' はメモ {id} のバージョンではありません。'memo history {id}' が表示する 16 進数のうち 4〜8 桁を指定してください",
        "cli.error.noSuchVersion": "メモ {id} にバージョン {version} はありません。'memo history {id}' で一覧を表示できます",
        "cli.error.ambiguousVersion": "{version} はメモ {id} の {count} 個のバージョンに一致します。桁を増やしてください",
        "cli.error.cannotReadHistory": "メモ {id} の履歴を表示できません: {error}",
        "cli.history.thisDevice": "この端末",
        "cli.error.numberTooLarge": "{what}が大きすぎます(指定値 {value})",
        "cli.error.oneID": "'{command}' が取るメモの ID は 1 つです('{argument}' も指定されています)",
        "cli.error.optionNeeds": "オプション {option} には{what}が必要です",
        "cli.error.optionNotForCommand": "オプション {option} は '{command}' では使えません('memo help {command}' を参照)",
        "cli.error.optionTakesNoValue": "オプション {option} は値を取りません",
        "cli.error.optionTakesValues": "オプション {option} は {count} 個の値を取ります。別々の引数で指定してください",
        "cli.error.optionTwice": "オプション {option} が 2 回指定されています",
        "cli.error.passphraseChanged": "ストア {path} のパスフレーズがほかの端末で変更されたため、新しいパスフレーズが必要です。MEMO_PASSPHRASE、--passphrase-file FILE、またはターミナルで入力してください。何も読み書きしていません",
        "cli.error.passphraseNotUTF8": "パスフレーズが正しい UTF-8 ではありません",
        "cli.error.passphraseRequired": "ストア {path} は暗号化されているため、パスフレーズが必要です。MEMO_PASSPHRASE、--passphrase-file FILE、またはターミナルで入力してください。何も読み書きしていません",
        "cli.error.passphraseTooShort": "パスフレーズが短すぎます(最低 {count} 文字。いくつかの単語を並べるのが最適です)",
        "cli.error.passphrasesDiffer": "2 回入力したパスフレーズが一致しません。何も変更していません",
        "cli.error.plainReadBeforeEncryptFailed": "暗号化を有効にする前に、暗号化されていないストアを読み込めませんでした: {error}。暗号化はまだ無効のままです",
        "cli.error.purgeAllAlone": "'purge --all' はゴミ箱を空にします。メモの ID は取りません",
        "cli.error.purgeNeedsIDs": "'purge' にはゴミ箱内のメモの ID か、ゴミ箱を空にする --all が必要です",
        "cli.error.purgeNotInTrash": "メモ {id} はゴミ箱にありません。完全に削除できるのはゴミ箱内のメモだけです(先に 'memo delete {id}')。何も削除していません",
        "cli.error.readEmpty": "読み込んだテキストが空なので、メモを作成しませんでした('memo new \"\"' で空のメモを作成できます)",
        "cli.error.searchNeedsQuery": "'search' には検索する語が必要です",
        "cli.error.settingsUnreadable": "設定ファイル {path} を読み込めません({error})。修正するか削除してから、もう一度 'memo sync --store PATH' を実行してください",
        "cli.error.storeCommandNoStore": "まだストアのフォルダーがありません。--store PATH を指定するか、'memo sync --store PATH' で一度同期してください",
        "cli.error.storeMissing": "ストアのフォルダー {path} がありません(ドライブや共有フォルダーはマウントされていますか?)。作り直すには 'memo sync --store {path}' を実行してください",
        "cli.error.storeNeedsAction": "'store' には次のいずれかが必要です: {actions}('memo help store' を参照)",
        "cli.error.keyBlobMissing": "ストア {path} に鍵ブロブがなく、暗号化されたこのライブラリにも戻せる鍵ブロブがありません。何も同期せず、平文では何も書いていません。ストアをまだ開けるデバイスを先に同期するか、'memo store decrypt' で暗号化をオフにしてください",
        "cli.error.keyBlobDamaged": "ストア {path} の鍵ブロブ {key} が壊れています({reason})。何も同期していません。このストアと同期したことのある端末がその写しを持っています。その端末で 'memo sync' を実行して写しを書き戻してから、ここでもう一度同期してください",
        "cli.error.keyBlobNotRecorded": "ストア {path} には新しい鍵ブロブがありますが、このライブラリに記録できませんでした({error})。今すぐ 'memo sync' を実行すると記録されます(それまでにストアが鍵ブロブを失うと、以前の鍵ブロブが戻されます)",
        "cli.error.rememberedKeyDamaged": "このライブラリがストア {path} 用に保存した鍵({file})が壊れています。ライブラリが持つストアの鍵ブロブの写しを開けません。MEMO_PASSPHRASE、--passphrase-file FILE、またはターミナルでパスフレーズを入力すると、もう一度保存されます。何も読み書きしていません",
        "cli.error.libraryNotEncrypted": "このライブラリは暗号化されていません。オフにするものはありません",
        "cli.error.storeNotEncrypted": "ストア {path} は暗号化されていません。変更するパスフレーズも、交換する鍵もありません（'memo sync --encrypt' で暗号化をオンにします）",
        "cli.note.keyBlobRestored": "{path} に鍵ブロブがありませんでした(消去された、鍵ブロブが削除された、または新しいストア)。このライブラリの鍵ブロブを戻しました。ストアは暗号化されたままです",
        "cli.note.keyBlobRepaired": "{path} の鍵ブロブ {key} が壊れていました。このライブラリの写しを書き戻しました。ストアは暗号化されたままです",
        "cli.note.keyBlobRolledBack": "{path} にはこのライブラリのものより古い鍵ブロブしかありませんでした(バックアップから復元された、または巻き戻された)。このライブラリの鍵ブロブを戻したので、変更したパスフレーズや交換した鍵はそのままです",
        "cli.note.plainBlobsIgnored": "暗号化されたストア {path} の平文 {count} は適用していません(暗号化を通して書かれていません。'memo sync --json' が一覧にします)",
        "cli.prompt.passphraseToDecrypt": "{path} の暗号化をオフにするためのパスフレーズ: ",
        "cli.status.encrypted": "オン: このライブラリは暗号化してのみ同期し、ストアには暗号文があります(パスフレーズを尋ねます)",
        "cli.status.encryptedRemembered": "オン: このライブラリは暗号化してのみ同期し、ストアには暗号文があります(鍵を記憶しています)",
        "cli.status.encryption": "暗号化:",
        "cli.status.history": "履歴:",
        "cli.status.heldBack": "保留中の操作:",
        "cli.status.heldBackValue": "{count}が前提となる操作を待っています(損傷したファイルとともに失われたか、まだ受け取っていない)。それを公開したデバイスがあれば、同期で受け取って適用されます('memo recover' でそのテキストを表示、'memo recover --restore' で新しいメモに復旧)",
        "cli.recover.none": "保留中の編集はありません。このライブラリに保存された編集はすべて表示されています。",
        "cli.recover.intro": "{count}が前提となる操作を待っています(損傷したファイルとともに失われたか、まだ受け取っていない)。それらが入力したテキストを、メモごとに入力順で示します(別の位置への挿入は新しい行から)。待っている操作を同期が取り戻せば、自動的に適用されます:",
        "cli.recover.memo": "メモ {id}({count}):{title}",
        "cli.recover.notHere": "このライブラリにはありません(作成の操作も待っています)",
        "cli.recover.noText": "(テキストなし:削除、ゴミ箱への移動、復元のみ)",
        "cli.recover.restored": "メモ {id} として復旧しました:{title}",
        "cli.recover.alreadyRestored": "復旧済みのメモ {id}:{title}",
        "cli.recover.nothingToRestore": "復旧するものはありません。テキストを挿入する保留中の操作はありません。",
        "cli.recover.heading": "「{title}」から復旧した編集",
        "cli.recover.stillWaiting": "保留中の操作は待ち続け、待っている操作を同期が届ければ自動的に適用されます。そのとき復旧したメモはその横に残ります。",
        "cli.status.keptAside": "取り置いたファイル:",
        "cli.status.keptAsideValue": "ライブラリのフォルダーの {files}(損傷したか残ったコピー。memo は読みも消しもしません)",
        "cli.status.historyValue": "削除されたテキストを{period}保持('memo history --keep' で変更します)",
        "cli.status.plain": "オフ: 最後の同期のときストアには平文がありました('memo sync --encrypt' でオンにします)",
        "cli.status.plainNoStore": "オフ('memo sync --encrypt' でオンにします)",
        "cli.store.decryptExplained": "このライブラリと {path} の暗号化をオフにします。ストアの鍵ブロブと暗号化されたブロブを削除し、すべてのメモを平文で公開し直します。ストアを読める人なら誰でも読めます。暗号化して同期した他のデバイスは、それぞれで 'memo store decrypt' を実行するまで暗号化を続けます(鍵ブロブも戻します)。",
        "cli.store.decrypted": "このライブラリと {path} の暗号化をオフにしました。ストアには平文があります。",
        "cli.error.storeOptionsNeedS3": "--endpoint と --region は --store s3://BUCKET/PREFIX と一緒に指定してください",
        "cli.error.syncFailed": "同期に失敗しました: {error}",
        "cli.error.syncUnfinished": "同期は完了しませんでした: {error}",
        "cli.error.textNotCombined": "--text はテキスト全体を置き換えます。--insert や --delete とは併用できません",
        "cli.error.textOnce": "テキストは 1 回だけ指定してください(--text か --text-file)",
        "cli.error.dashStandsAlone": "'-'(標準入力のテキスト)は単独で指定します。'-' で始まるテキストは次のように書いてください: memo new -- '- テキスト'",
        "cli.error.textTwoWays": "テキストは引数か --text-file のどちらか一方で指定してください",
        "cli.error.unexpectedNumber": "予期しない数値 {number}。ダッシュで始まるテキストは前に -- を付けてください",
        "cli.error.unknownCommand": "不明なコマンド '{command}'('memo help' でコマンドの一覧を表示できます)",
        "cli.error.unknownOption": "不明なオプション {option}('memo help' を参照)",
        "cli.error.wrongPassphrase": "このパスフレーズではストア {path} を開けません。何も読み書きしていません",
        "cli.exported": "{count}を {path} に書き出しました。",
        "cli.file.diskFull": "ディスクがいっぱいです",
        "cli.file.exists": "同じ名前のものがすでにあります",
        "cli.file.readOnly": "読み取り専用のディスクです",
        "cli.file.unknownFailure": "ファイルの操作に失敗しました",
        "cli.file.failed": "システムのメッセージ: {reason}",
        "cli.file.isFolder": "ファイルではなくフォルダーです",
        "cli.file.missing": "そのようなファイルはありません",
        "cli.file.permissionDenied": "読み取る権限がありません",
        "cli.file.tooLarge": "{limit} を超えています",
        "cli.file.isSocket": "ソケットなので memo は書き込みません",
        "cli.file.closed": "受け取る側が閉じられました (パイプの読み取り側、または端末)",
        "cli.file.ioError": "ディスクでエラーが起きました (入出力エラー)",
        "cli.file.writePermissionDenied": "書き込む権限がありません",
        "cli.import.linkOutside": "{path}: フォルダーの外のファイルを指すシンボリックリンクです(たどりません。取り込むにはそのファイル自体を指定してください)",
        "cli.import.notRegularFile": "{path}: 通常のファイルではありません(パイプ、ソケット、デバイスは開きません。読み込むにはコマンドラインで直接指定してください)",
        "cli.import.missing": "{path}: ファイルまたはフォルダーがありません",
        "cli.import.notUTF8": "{path}: UTF-8 のテキストではありません(別のエンコーディングか、テキストではありません)。先に UTF-8 で保存してください",
        "cli.import.unreadable": "{path}: 読み込めません({error})",
        "cli.import.utf16": "{path}: UTF-16 のテキストです。先に UTF-8 で保存してください",
        "cli.importSkipped": "同じ内容のメモがすでにあるため {count}をスキップしました(それでも読み込むには --again):",
        "cli.imported": "{count}を読み込みました。",
        "cli.inTrashMark": "(ゴミ箱内)",
        "cli.listEmpty": "(メモはありません)",
        "cli.note.credentialsReadableByOthers": "{path} はこのコンピューターの他のユーザーも読めます。ストアの認証情報が入っています(chmod 600 {path})",
        "cli.note.createdLibrary": "{path} に新しいライブラリを作成しました",
        "cli.note.removedNewLibrary": "{path} の新しいライブラリを削除しました。何も同期されていません",
        "cli.warning.libraryDamaged": "警告: ライブラリのファイル {file} が破損しています: {ranges} バイトに完全な記録がありません。保存済みの記録 {lost} 件を失い、完全な記録 {recovered} 件を復元しました。そのうち {heldBack} 個の操作は、失われた記録を待っています。ほかのデバイスが公開していれば、同期でその記録が戻ります。破損したファイルは手を加えずに {kept} として保管しました。何も削除していません (終了ステータス 4)",
        "cli.warning.libraryCutShort": "警告: ライブラリのファイル {file} が、最後に正常に閉じたときより {missing} バイト短くなっています: {ranges} バイトに保存された編集は失われました。その編集を公開した別の端末があれば、同期で戻ります。無傷の記録 {recovered} 件を復元しました。ファイルは手を加えずに {kept} として保管し、何も削除していません (終了ステータス 4)",
        "cli.warning.libraryCutShortReadOnly": "警告: ライブラリのファイル {file} が、最後に正常に閉じたときより {missing} バイト短くなっています: {ranges} バイトに保存された編集は失われました。その編集を公開した別の端末があれば、同期で戻ります。無傷の記録 {recovered} 件を復元しました。読み取ったとおりに表示しています。ライブラリを変更する次のコマンドがファイルを別に保管します (終了ステータス 4)",
        "cli.warning.libraryFileMissing": "警告: ライブラリのファイル {file} がありません。最後に正常に閉じたとき、このファイルには {missing} バイトの編集が保存されていました: その編集は失われました。その編集を公開した別の端末があれば、同期で戻ります (終了ステータス 4)",
        "cli.warning.memoTextDamaged": "警告: ライブラリのファイル {file} からメモ {id} のテキストを読み取れません: 保存後に破損しました。メモの一覧が持つ内容 (タイトルとプレビュー) を表示します。ライブラリはそのファイルを変更せず、ほかのメモは無事です (終了ステータス 4)",
        "cli.warning.libraryDamagedReadOnly": "警告: ライブラリのファイル {file} が破損しています: {ranges} バイトに完全な記録がありません。保存済みの記録 {lost} 件を失い、完全な記録 {recovered} 件を復元しました。そのうち {heldBack} 個の操作は、失われた記録を待っています。ほかのデバイスが公開していれば、同期でその記録が戻ります。読み取ったとおりに表示します。ライブラリを変更する次のコマンドが破損したファイルを別に保管します (終了ステータス 4)",
        "cli.warning.leftoverKept": "警告: {file} にはこのライブラリにない編集があります (クラッシュで中断された圧縮、またはライブラリの別のコピーのファイル): 削除せず {kept} として保管しました (終了ステータス 4)",
        "cli.warning.editStepNotRecorded": "警告: 編集は保存しましたが、取り消しの手順を記録できませんでした({error})。そのため 'memo undo' ではこの編集を取り消せません",
        "cli.warning.historyDamaged": "警告: 取り消し履歴 {path} が正しい JSON ではありません: 手を加えずに {kept} として保管し、新しい履歴を始めました (そこにあった編集は取り消しもやり直しもできなくなりました。ほかに失われたものはありません) (終了ステータス 4)",
        "cli.note.plainBlobsCollected": "{path} から暗号化されていない {count}を削除しました。同じ内容は暗号化してストアに保存されています",
        "cli.note.waitingForLibrary": "別の memo コマンドがライブラリを使い終わるのを待っています...",
        "cli.progress.export": "書き出し中",
        "cli.progress.line": "{task}: {done}/{planned}、読み込み {read}、書き込み {written}",
        "cli.progress.listing": "ストアの一覧を取得中",
        "cli.progress.sync": "同期中",
        "cli.prompt.changedPassphrase": "ストアのパスフレーズが変更されました。新しいパスフレーズ: ",
        "cli.prompt.newPassphrase": "ストアの新しいパスフレーズ: ",
        "cli.prompt.passphrase": "{path} のパスフレーズ: ",
        "cli.prompt.passphraseAgain": "同じパスフレーズをもう一度入力してください: ",
        "cli.prompt.rememberedKeyDamaged": "ストア用に保存した鍵が壊れています。パスフレーズ: ",
        "cli.purged": "{count}を完全に削除しました。",
        "cli.quoted": "「{title}」",
        "cli.redone": "{id} {title} の編集をやり直しました。",
        "cli.restored": "{id} {title} を復元しました。",
        "cli.searchEmpty": "(一致するメモはありません)",
        "cli.status.earlier": "以前の ID:",
        "cli.status.earlierValue": "{ids}{more}(クラッシュやコピーの後)",
        "cli.status.lastSync": "最終同期:",
        "cli.status.library": "ライブラリ:",
        "cli.status.memos": "メモ:",
        "cli.status.memosValue": "{active}、ゴミ箱に {trashed}",
        "cli.status.never": "まだありません",
        "cli.status.noStore": "まだありません('memo sync --store PATH' で設定)",
        "cli.status.none": "なし",
        "cli.status.older": " ほか古いもの {count} 件",
        "cli.status.replica": "レプリカ:",
        "cli.status.replicaValue": "{id}(ライブラリを正常に閉じれば引き継がれ、クラッシュ後やコピーでは新しくなります)",
        "cli.status.store": "ストア:",
        "cli.status.unsynced": "未同期の編集:",
        "cli.status.unsyncedValue": "このライブラリがまだ公開していない {count}",
        "cli.store.dataKeyAdded": "{path} に新しいデータ鍵を追加しました({key})。新しいブロブはこの鍵で暗号化され、以前のブロブも引き続き読み込めます。",
        "cli.store.passphraseChanged": "{path} のパスフレーズを変更しました。ほかの端末では次回の同期のときに新しいパスフレーズを尋ねられます。",
        "cli.storeErrorsAbove": "{count}(上記を参照)",
        "cli.storeNotListed": "ストアの一覧を取得できませんでした",
        "cli.suggestionSeparator": "。",
        "cli.sync.blobs": "{read}を読み込み({readBytes})、{written}を書き込み({writtenBytes})、{deleted}を削除。開始時のストアには {listed}。",
        "cli.sync.done": "{store} と同期しました。",
        "cli.sync.nothingNew": "ストアに新しい変更はありません。",
        "cli.sync.pending": "前提となる変更が届くまで {count}を保留しています。",
        "cli.sync.published": "このライブラリの {count}を公開しました(未同期の編集)。",
        "cli.sync.received": "ストアから {count}を受け取りました(ほかの端末での編集)。",
        "cli.sync.skipped": "{count}をスキップしました(表示は一度だけです。変更されたとき、または転送中に壊れた可能性があるときに再び読み込みます):",
        "cli.sync.skippedAgain": "{count}を前回と同じくスキップしました(以前の同期で表示済みです)。",
        "cli.sync.skippedMore": "ほか {count} 件('memo sync --json' ですべて表示できます)。",
        "cli.sync.snapshot": "ノート全体のスナップショットを公開しました(新しい端末はここから始めます)。",
        "cli.sync.storeErrors": "ストアのエラー:",
        "cli.sync.unfinished": "{store} との同期は完了しませんでした(下のストアのエラーを参照。もう一度 'memo sync' を実行してください)。",
        "cli.trashEmpty": "(ゴミ箱は空です)",
        "cli.typedKeptIn": "。入力した内容は {path} に保存されています",
        "cli.undone": "{id} {title} の最後の編集を取り消しました。",
        "cli.untitled": "(無題)",
        "cli.version": "memo {version}(ライブラリ形式 {library}、ストア構成 {store})",
        "cli.what.deleteLength": "--delete の長さ",
        "cli.what.deleteOffset": "--delete の位置",
        "cli.what.filePath": "ファイルのパス",
        "cli.what.filePathOrDash": "ファイルのパス(標準入力は -)",
        "cli.what.folderPathOrURL": "フォルダーのパスまたはストアの URL",
        "cli.what.url": "URL",
        "cli.what.regionName": "リージョン名",
        "cli.what.folderPath": "フォルダーのパス",
        "cli.what.daysOrForever": "日数または forever",
        "cli.what.insertOffset": "--insert の位置",
        "cli.what.offsetAndLength": "OFFSET と LENGTH",
        "cli.what.offsetAndText": "OFFSET と TEXT",
        "cli.what.value": "値",
        "cli.whichChange": "({count} 件中 {index} 件目の変更)",
        // MARK: help
        "help.examplesLabel": "例:",
        "help.exitDamaged": "終了ステータス 4: 作業はしたがライブラリの破損が見つかった (警告が失われた\nものを伝えます)。",
        "help.footer": """
            メモの ID: ほかのメモと重ならない限り、ID の先頭部分だけで指定できます('memo show
            3fa2')。'memo list' は ID を 8 桁以上に短縮して表示します。

            ライブラリ: メモを保存するフォルダーです。--library PATH、なければ環境変数
            MEMO_LIBRARY、なければユーザーのデータフォルダー(Linux では $XDG_DATA_HOME/memosync
            か ~/.local/share/memosync、macOS では ~/Library/Application Support/MemoSync)。
            メモを表示するだけのコマンドは待たされません。ほかの memo コマンド(エディター、
            同期)の実行中でも動きます。

            すべてのコマンドのオプション: --library PATH、--quiet(-q): エラーと破損の警告以外は
            標準エラーに何も出さない、--json: プログラム向けの出力(言語によらない。help、store、
            serve、demo、completion を除くすべてのコマンドで使える)、--help(-h)。
            'memo --version' でバージョンを表示します。

            終了ステータス: 成功は 0、コマンドの失敗は 1、コマンドラインの誤りは 2、パスフレーズ
            が違う・ない・古いときは 3、作業はしたがライブラリの破損が見つかったときは 4 (警告が
            失われたものを伝えます)。'search' は grep と同じく、一致なしで 1、エラーで 2 です。エラーは "memo: <メッセージ>" の形で
            標準エラーに出ます。失敗したコマンドは何も変更しません。ただし同期は、保存先の
            エラーの前に受け取ったものを保ち('memo help sync')、'memo store decrypt' は
            どこで止まったか、何を実行すればよいかをエラーで伝えます。

            言語: メッセージとヘルプは LC_ALL、LC_MESSAGES、LANG に従います(英語、韓国語、
            日本語)。日付と数値はロケールの形式です。'memo help コマンド' に例があります。
            """,
        "help.group.files": "書き出しと読み込み",
        "help.group.find": "探す",
        "help.group.more": "その他",
        "help.group.sync": "同期",
        "help.group.trash": "ゴミ箱",
        "help.group.write": "書く",
        "help.page.completion": """
            bash、zsh、fish で memo のコマンド、オプション、メモの ID を補完するスクリプトを
            出力します。シェルの起動ファイルから読み込んでください。

            例:
              echo 'source <(memo completion bash)' >> ~/.bashrc
              memo completion zsh > "${fpath[1]}/_memo"
              memo completion fish > ~/.config/fish/completions/memo.fish

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.delete": """
            メモをゴミ箱に移動します('memo restore ID' で元に戻せます)。ほかの端末では次の
            同期でゴミ箱に移動します。その間に誰かが編集した場合は移動しません。

            --json  移動後のメモをオブジェクトで出力

            例:
              memo delete 3fa2
              memo trash

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.summary.serve": "ブラウザーで使うメモアプリ (バックグラウンドで同期)",
        "help.page.serve": """
            このコンピューターのブラウザーにメモアプリを表示します: メモの一覧と編集欄、
            入力中に絞り込む検索、ゴミ箱、ライト/ダーク、英語・韓国語・日本語。開くアドレス
            (起動のたびに作り直すアクセストークン付き) を表示し、一度だけ使える別のトークンを付けた
            アドレスを (オープナーのコマンドラインはほかのユーザーにも読めるため) $BROWSER で、なければデスクトップの
            オープナー (ディスプレイがあれば xdg-open、macOS では open) で開きます。
            ライブラリはバックグラウンドで保存先 (memo sync が覚えている保存先か --store) と
            同期されます。その間もほかの memo コマンドは同じライブラリで使えます。Ctrl-C で
            停止します。

            --port N                 127.0.0.1 のポート (既定: 空いている任意のポート)
            --listen ADDRESS[:PORT]  別の IPv4 アドレスで待ち受ける (トークンは引き続き必要。
                                     届く人は誰でも試せます)
            --no-open                アドレスを表示するだけ
            --store PATH|URL         この保存先と同期する (memo sync と同じ)
            --sync-interval SECONDS  少なくともこの間隔で同期する (既定 30)

            例:
              memo serve
              memo serve --port 8080 --no-open

            終了ステータス: 停止すると 0、コマンドが失敗すると 1、コマンドラインの誤りは 2。
            """,
        "cli.serve.address": "開くアドレス: {url}",
        "cli.serve.syncing": "{store} とバックグラウンドで同期します (少なくとも {seconds} 秒ごと)。",
        "cli.serve.stop": "停止するには Ctrl-C を押してください。",
        "cli.note.serveListening": "{address} で待ち受けています: 接続には上のアドレスのトークンが必要です。トークンは暗号化されない平文 (通常の HTTP) でネットワークを流れるため、通信を見られる人は誰でもトークンを手に入れ、すべてのメモを読み書きできます",
        "cli.error.serveCannotListen": "{address} で待ち受けられません: {error}",
        "help.page.demo": """
            中心となる機能を 1 つのコマンドで見せます。2 台の端末(DIR 内の 2 つのライブラリ)が
            1 つのフォルダーをストアとして共有し、オフラインで同じメモを編集してから順に同期し、
            同じ状態になります。各段階で何が起きたかと、同じことを手で行う memo コマンドを
            表示します。

            --dir DIR  2 つのライブラリと共有フォルダーを置く場所: 新しいフォルダー、空の
                       フォルダー、または以前のデモが作ったフォルダー(その結果を置き換え
                       ます)。既定は一時フォルダーの memosync-demo-UID

            例:
              memo demo
              memo demo --dir /tmp/memo-demo

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.edit": """
            オプションがなければ、テキストを入れた一時ファイルで $VISUAL($EDITOR、どちらもなく
            端末なら vi)を開き、エディターが正常に終了したら書いた内容を保存します。エディター
            が開いている間はライブラリを占有しないので、ほかのコマンドや同期は動き続け、その間の
            変更と編集内容はマージされます。エディターが失敗した場合、入力した内容はメッセージ
            に示すファイルに残ります。元のテキストが改行で終わっていないのにファイルが改行で
            終わっている(多くのエディターが付けます)場合、その改行 1 つは取り除きます。

            --text TEXT              テキスト全体を置き換える(- は標準入力)。違う部分だけが
                                     変わるので、ほかで行った編集も残ります
            --text-file PATH         テキスト全体をファイルの内容で置き換える(標準入力は -)
            --insert OFFSET TEXT     OFFSET の位置に TEXT を挿入
            --delete OFFSET LENGTH   OFFSET から LENGTH 文字を削除
            --json                   編集後のメモをオブジェクトで出力

            OFFSET と LENGTH は 0 から数える Unicode スカラー(コードポイント)の数です。1 つの
            コードポイントで書いた "é" は 1、"e" と結合アクセントは 2、絵文字は 1(国旗は 2)。
            --insert と --delete を複数指定すると、前のものを適用したテキストに順に適用します。
            1 つでもテキストに合わなければ何も変わりません。ゴミ箱内のメモは先に復元してから
            編集してください。'memo undo ID' で編集を取り消せます。

            例:
              memo edit 3fa2
              memo edit 3fa2 --text "オーツミルクを買う"
              sed 's/牛乳/豆乳/' draft.txt | memo edit 3fa2 --text -
              memo edit 3fa2 --insert 0 "TODO: " --delete 20 5

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.export": """
            メモをプレーンテキストで書き出します。標準出力(--output - も同じ)か FILE に
            書きます。FILE にあるファイルは丸ごと置き換えます(新しいテキストを隣に書いてから
            置き換えるので、失敗した書き出しは元のファイルをそのままにします)。書き込む権限の
            ないファイルは拒否します。シンボリックリンクはたどり、指すファイルを同じように
            置き換えます。パイプ(FIFO)やデバイス(/dev/stdout、端末)は置き換えず、そこに
            書き込みます。--all なら、ゴミ箱にないすべてのメモをフォルダー DIR(なければ
            作成)に 1 件ずつ UTF-8 の .txt ファイルとして書きます。ファイル名はタイトルから
            作り(一般的なファイルシステムで安全かつ重複しないように)、ファイルの日付はメモの
            最終変更時刻なので、'memo import --again DIR' で同じメモに戻せます(--again はテキストが同じメモもすべて戻します。取り込みはどのファイルでも
            CR LF の改行を LF にし、先頭のバイト順マークを除きます)。--force がなければ既存の
            ファイルは上書きせず、1 つでも上書きすることになるなら何も書きません。失敗した
            書き出しは何も変えません。既にあったファイルは内容がそのままで、新しいファイルは
            残りません。端末では、1 秒を超える書き出しは --quiet でない限り進み具合を表示します。

            --output FILE, -o FILE  FILE に書く
            --all DIR               すべてのメモを DIR に書く
            --force                 既存のファイルを上書き(--all と共に)
            --json                  --all ならオブジェクト: directory、files(オブジェクト:
                                    id、file)。1 件ならそのメモ(または id と file)

            例:
              memo export 3fa2 > groceries.txt
              memo export --all ~/memos-backup
              memo export --all ~/memos-backup --force

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.help": """
            作業ごとにまとめたコマンド、1 つのコマンドの例付きの説明、または --man なら同じ
            内容から作った man ページ(roff)形式のマニュアル全体を表示します。

            例:
              memo help
              memo help sync
              memo help --man > memo.1 && man ./memo.1

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.import": """
            テキストや Markdown のファイル 1 つにつきメモを 1 件作成します。PATH はファイルか、
            中の .txt、.text、.md、.markdown ファイルを読み込むフォルダーです(サブフォルダーも
            含み、隠しファイルは除く)。メモのテキストはファイルの内容で、UTF-8(BOM はあっても
            よく、取り除きます)、CR LF の改行は LF にします。タイトルは 1 行目です。ファイルの
            日付がメモの日付(作成、最終変更)になり、日付順に作成します。ライブラリにすでにある
            変更より前の日付は、その変更の直後になり、未来の日付は読み込んだ時刻になります。
            ほかのエンコーディング(UTF-16、Latin-1 など)のファイルは理由とともに拒否し、
            その場合は何も読み込みません。

            テキストがすでにあるメモと同じファイル(ライブラリやゴミ箱、または同じ読み込みの
            ほかのファイル)はスキップするので、同じファイルを 2 回読み込んでも重複しません。
            --again ならそれでも読み込みます('memo export --all' でライブラリを移すときのように、
            テキストが同じメモも 1 件ずつ戻ります)。ライブラリがなければ作成します。

            --again  同じテキストのメモがあっても読み込む
            --json   オブジェクト: imported(オブジェクト: file、id)、skipped(ファイル)

            例:
              memo import notes/todo.md
              memo import ~/Documents/notes
              memo export --all backup && memo --library new-library import --again backup

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.list": """
            ゴミ箱にないメモを最近変更した順に表示します。短い ID、最後の変更時刻(ローカル
            時刻、ロケールの形式)、タイトル(1 行目)が並びます。ほかの memo コマンドの実行中
            でも動きます。

            --json  オブジェクトの JSON 配列: id、title、preview、createdAt、modifiedAt
                    (ISO 8601、UTC)、status。

            例:
              memo list
              memo list --json | jq -r '.[].title'

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.new": """
            メモを作成し、その ID(16 進数 32 桁)を 1 行で出力します。

            テキストは TEXT です(複数の語は半角スペース 1 つでつなぎます)。- か
            --text-file - なら標準入力、--text-file PATH ならそのファイル(UTF-8)を読んだまま
            使います。どれもなければ、標準入力が端末でないときは標準入力を、端末ならエディター
            ($VISUAL か $EDITOR)を空のファイルで開きます。入力やファイルが空なら何も作りません。
            'memo new ""' で空のメモを作成できます。ダッシュで始まるテキストは前に -- を付けて
            ください。ライブラリがなければ作成します。

            --text-file PATH  PATH からテキストを読む(標準入力は -)
            --json            新しいメモをオブジェクトで出力('memo show --json' と同じ)

            例:
              memo new "牛乳を買う"
              echo "水道屋さんに電話" | memo new
              memo new --text-file notes/meeting.md
              pbpaste | memo new -

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.purge": """
            ゴミ箱内のメモを完全に削除します。テキストはこのライブラリのファイルから消え、ほかの
            端末でも次の同期で消えます。ID はすべてゴミ箱内のメモでなければならず、1 つでも違えば
            何も削除しません。--all はゴミ箱を空にします。

            ライブラリの破損の後、保留された編集のために保管している記録にテキストがあるメモは、
            同期で破損分を取り戻すまで削除しません(そのときは何も削除しません)。別に保管した
            破損ファイルのコピーは変更しません。テキストが残っている可能性があるため、警告で
            知らせます。

            --all   ゴミ箱内のすべてのメモ
            --json  オブジェクト: purged(削除した ID)、keptAside(知らせたコピー)。

            例:
              memo purge 3fa2 91c0
              memo purge --all

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.redo": """
            メモに対する直前の 'memo undo' が取り消した編集をやり直します。メモを新たに編集
            すると、やり直せる履歴は消えます。

            --json  やり直し後のメモをオブジェクトで出力

            例:
              memo undo 3fa2
              memo redo 3fa2

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.restore": """
            ゴミ箱からメモを復元します。ID はゴミ箱内のメモの ID の、重ならない先頭部分で
            かまいません('memo trash' で一覧できます)。

            --json  復元後のメモをオブジェクトで出力

            例:
              memo trash
              memo restore 3fa2

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.search": """
            テキストに QUERY を含むメモを最近変更した順に表示します。大文字小文字(完全な
            ケースフォールディング: "strasse" で "Straße" が見つかります)、アクセント、Unicode
            の正規化("cafe" で "Café")、全角と半角("abc" で "ＡＢＣ"、"ガ" で "ｶﾞ")、
            ひらがなとカタカナ("かな" で "カナ")は区別しません。複数の語は半角スペースで
            つないだ 1 つの語句として検索します。ゴミ箱内のメモは検索しません。

            --kana-distinct  ひらがなとカタカナを区別します。
            --json           'memo list --json' と同じ。

            例:
              memo search 牛乳
              memo search "オーツ ミルク" --json
              memo search 牛乳 > /dev/null && echo "あり"

            終了ステータス: 一致するメモがあれば 0、なければ 1(端末以外には何も出力しない)、
            エラーやコマンドラインの誤りは 2(grep と同じ)。
            """,
        "help.page.history": """
            メモのバージョンを新しい順に 1 行ずつ表示します: バージョンの短い名前('memo show
            --at'、'memo diff'、'memo revert' に指定するもの)、端末が作成した時刻、追加(+)と
            削除(-)した文字数、端末。別の端末によるこのメモの編集が間に入ったとき、または端末が
            他のメモを編集して 10 分以上たってからこのメモに戻ったときにバージョンが区切られます
            (間に何もない 1 つのメモの編集は、どれだけ間が空いても 1 つのバージョンです。その間に
            受け取った他のメモの編集は影響しません)。同じ編集を持つ端末はどれも同じ名前で
            同じバージョンを表示します。

            --json  配列: version, cut, device, thisDevice, time, inserted, deleted。

            例:
              memo history 3fa2
              memo show 3fa2 --at 9c41e07a
              memo history --keep 30

            ID を付けずに --keep DAYS(1 から 36500)または --keep forever を指定すると: 以前の
            バージョンを表示できるよう、ライブラリが削除されたテキストを保持する期間を設定します
            (設定するまでは 90 日。'memo status' に表示されます)。それより古い削除されたテキストは
            すぐに、その後も破棄されます。メモのテキストは変わりません。ライブラリ(端末)ごとに
            期間があります。

            終了ステータス: 成功なら 0、コマンドが失敗したら 1、コマンドラインが誤っていれば 2。
            """,
        "help.page.diff": """
            メモの変更を行単位の unified diff で表示します。バージョンを指定しなければ最新の
            バージョンとその前のバージョンを、FROM だけならそのバージョンと最新を、FROM と TO なら
            その 2 つを比べます。削除されたテキストは、ライブラリが保持している間(保存期間)だけ
            表示できます。

            --json  オブジェクト: id, from, to, changes(kind、text、各テキストでの UTF-16 と
                    スカラーの範囲)、lines(変更された行の範囲)。

            例:
              memo diff 3fa2
              memo diff 3fa2 9c41e07a

            終了ステータス: 成功なら 0、コマンドが失敗したら 1、コマンドラインが誤っていれば 2。
            """,
        "help.page.revert": """
            メモのテキストを VERSION の時点の状態に戻す新しい編集を行います。違う部分だけを削除
            または入力し直すので、その間に別の端末で行った編集は同期しても残り、'memo undo' で
            元に戻せます。

            --json  戻した後のメモ('memo show --json' と同じ形式)。

            例:
              memo revert 3fa2 9c41e07a

            終了ステータス: 成功なら 0、コマンドが失敗したら 1、コマンドラインが誤っていれば 2。
            """,
        "help.page.show": """
            メモのテキストを保存されたとおりに出力します(端末では、テキストが改行で終わって
            いなければ改行を付けます)。ゴミ箱内のメモも表示できます。

            --at VERSION  そのバージョンの時点のテキスト('memo history ID' で一覧)。
            --before TIME  TIME より前に作られた最新のバージョンのテキスト(2026-11-20 18:30)。
            --json  オブジェクト: id、title、text、preview、createdAt、modifiedAt、status。

            例:
              memo show 3fa2
              memo show 3fa2 > memo.txt

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.store": """
            暗号化されたストアを管理します('memo sync --encrypt' で有効にします)。

            passphrase   パスフレーズを変更: ストアの鍵を新しいパスフレーズで包み直します
                         (メモのブロブは書き直しません)。新しいパスフレーズは端末で 2 回
                         尋ねるか、MEMO_NEW_PASSPHRASE または --new-passphrase-file から
                         読みます。他のデバイスは次の同期で新しいパスフレーズを尋ねます。
            rotate-key   新しいデータ鍵を追加: 新しいブロブはその鍵で暗号化され、古いブロブも
                         読めるままです。パスフレーズは変わりません。
            decrypt      このライブラリとストアの暗号化をオフにする: 何をするかを示し、
                         パスフレーズを尋ね(常に: 記憶した鍵では不可)、すべて受け取ってから
                         ストアの鍵ブロブと暗号化されたブロブを削除し、すべてのメモを平文で
                         公開し直します。他のデバイスはそれぞれで実行するまで暗号化を続けます。

            暗号化はライブラリの性質です。一度暗号化して同期したライブラリは、'memo store
            decrypt' までどのストアにも平文を書きません。鍵ブロブを失ったストア(消去された、
            鍵ブロブが削除された、新しいストアのフォルダー)は、次の 'memo sync' で同じ
            パスフレーズのライブラリの鍵ブロブを戻されます。ライブラリは 'store passphrase'
            や 'store rotate-key' の直後も最新の鍵ブロブを保持します。古い鍵ブロブに巻き
            戻されたストアにも最新の鍵ブロブが戻され(変更したパスフレーズはそのままです)、
            壊れた鍵ブロブはライブラリの写しに置き換えられます。

            このライブラリがストアの鍵を記憶していれば(ライブラリの store-key ファイル、本人
            だけが読める: パスフレーズそのものではなく、そこから導いた鍵)現在のパスフレーズは
            尋ねません。そうでなければ --passphrase-file FILE、MEMO_PASSPHRASE、または端末から
            受け取ります。

            --store PATH  ストアのフォルダー(既定: 'memo sync' が記憶したもの)

            例:
              memo store passphrase
              memo store rotate-key --store ~/Dropbox/memos
              memo store decrypt

            終了ステータス: 完了で 0、ストアを使えなければ 1、コマンドラインの誤りは 2、
            パスフレーズが違うかないときは 3(何も変更しません)。
            """,
        "help.page.status": """
            ライブラリのフォルダー、最後のセッションのレプリカ ID(ライブラリが正常に閉じられ、
            コピーでなければ次のセッションが引き継ぐ)と、まだその名前で公開する以前の ID、
            メモの数、まだストアに公開していない操作の数(未同期の編集。'memo sync' と同じ数え方)、
            最後に同期を終えた時刻、記憶しているストアのフォルダー、暗号化の有無(ライブラリと、したがってそのストア)を表示します。損傷が
            あったときは、保留中の操作(損傷したファイルが失った操作を同期が取り戻すまで待つもの)と、ライブラリの
            フォルダーに取り置いたファイルも表示します。ほかの memo コマンドの実行中でも動きます。

            --json  オブジェクト: library、replica、lineage(このライブラリが編集に使った最新の
                    ID 8 個)、lineageCount、memos、trashedMemos、unsyncedEdits
                    (unpublishedOperations としても)、lastSync(ISO 8601 か null)、store
                    (か null)、encrypted(ライブラリが暗号化してのみ同期する)、storeEncrypted
                    (最後の同期のときのストア。それまでは null)、passphraseRemembered、historyKeepDays
                    (null は無期限)、heldBackOperations、keptAside(ファイル名)。

            例:
              memo status
              memo status --json | jq .unsyncedEdits

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.recover": """
            保留中の編集のテキストを表示します。保留中の編集とは、このライブラリに保存されたものの、
            損傷したファイルが失った(またはまだ同期で受け取っていない)操作を前提とするために待って
            いる操作です。ライブラリの操作は作られた順に適用されるので、一度も同期していない記録を
            損傷が奪うと、その後に保存したものはすべてのメモで、失われた操作を持つデバイスから同期が
            取り戻すまで待ちます。そのようなデバイスがなければ適用されることはないので、ここから
            テキストをコピーしてください。操作が変更するメモごとに、ID、待っている操作の数、タイトル
            (またはメモがこのライブラリにないこと)、そしてそれらの操作が挿入し削除していない文字を
            入力順に表示します(別の位置への挿入は新しい行から)。--restore なしでは何も変更せず
            (待っている操作が届けば、保留中の操作は自動的に適用されます)、ほかの memo コマンドの
            実行中も動作します。

            --restore  代わりにテキストをメモに復旧します。保留中の操作がテキストを入力した
                       メモごとに新しいメモを 1 つ作り(このライブラリにあるメモなら、1 行目は
                       そのタイトルから「復旧した編集」)、ほかのメモと同じように同期されます。
                       あるメモがすでにそのまま持っているテキスト(以前に復旧したもの)は
                       作り直しません。保留中の操作は待ち続け、待っているものが届けば適用され、
                       復旧したメモはその横に残ります。
            --json     オブジェクト: heldBackOperations、memos(それぞれ id、operations、title
                       または null、text)。--restore と一緒なら restored(それぞれ
                       heldBackMemo、memo、created)。

            例:
              memo recover
              memo recover > recovered.txt
              memo recover --restore

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.sync": """
            ストアと変更をやり取りします。ストアは端末間で共有するフォルダーです(Dropbox、
            iCloud Drive、Syncthing のフォルダー、ネットワーク共有、USB メモリー)。各端末は
            自分のファイルだけをそこに書き、同期のたびにほかの端末が書いたものを読み、この
            ライブラリの新しい編集を公開します。--store PATH でフォルダーを指定すると(なければ
            作成)ライブラリに記憶されるので、以降はオプション不要です。メモをエディターで
            開いている間('memo edit')も同期できます。

            ストアには S3 互換のバケット(--store s3://BUCKET/PREFIX、AWS 以外のサービスは
            --endpoint URL、それに --region)や WebDAV のフォルダー(--store https://HOST/PATH
            または webdav://HOST/PATH)も使えます。認証情報は AWS_ACCESS_KEY_ID、
            AWS_SECRET_ACCESS_KEY、AWS_SESSION_TOKEN(なければライブラリの store-credentials
            ファイルの [s3] セクション、それもなければ AWS の共有認証情報ファイル
            AWS_SHARED_CREDENTIALS_FILE または ~/.aws/credentials のプロファイル AWS_PROFILE
            または default)から読みます。リージョンは --region、なければ AWS_REGION または
            AWS_DEFAULT_REGION、なければ us-east-1、エンドポイントは --endpoint、なければ
            AWS_ENDPOINT_URL_S3 または AWS_ENDPOINT_URL、なければ AWS です。WebDAV は
            MEMOSYNC_WEBDAV_USER と MEMOSYNC_WEBDAV_PASSWORD(なければ [webdav] セクション)から
            読みます。認証情報は表示も記憶もせず、URL にも入れません。

            結果を出力します: 読み書きしたブロブ、受け取り・公開した操作、スキップしたブロブと
            その理由(コピー途中のファイル、破損したファイル、新しい MemoSync が書いたファイル、
            どのブロブより大きいファイル、読めないフォルダー、たどらないシンボリックリンクや
            特殊ファイル)。一時的に失敗したブロブ(読み取りエラー、コピー途中のファイル)は次の
            同期で再試行し、恒久的に不正と判明したブロブ(同じ不正なバイトを 2 回読んだもの、
            そもそも MemoSync のブロブでないファイル、一覧の時点で拒否したもの)はストアの一覧で変化するまで読み直さず、記憶済みとして
            数えます。端末では、1 秒を超える
            同期は --quiet でない限り進み具合(ストア操作、読み書きしたバイト数)を標準エラーに
            表示します。

            操作とは、1 文字の入力や削除、またはメモ 1 件の作成・ゴミ箱への移動・復元・完全削除
            のことです。「N 個の操作を公開しました」はストアになかったこのライブラリの操作の数
            ('memo status' の未同期の編集)で、ほかの端末が同期すると受け取った操作として報告
            されます。

            --store PATH  ストアのフォルダー(記憶される)
            --json  レポートの項目を持つオブジェクト: complete(同期がすべて済めば true)、
                    listedStore、blobsListed、blobsRead、bytesRead、blobsWritten、
                    bytesWritten、blobsDeleted、operationsApplied(受け取った操作)、
                    publishedOperations、pendingOperationCount、publishedSegment(最後)、
                    publishedSegments、publishedSnapshot、skipped(オブジェクト: key、kind、
                    reason。初めて表示するブロブ)、skippedAgain(以前の同期で表示済み)、
                    blobsRemembered(そのうち読み込みもしなかったもの: 恒久的に不良)、errors(1 行ずつ)、problems(同じエラーをオブジェクトで:
                    operation、key、error、reason)、store、replica(このセッションの ID)、
                    encrypted(ストアの暗号化を通した)、plainBlobsIgnored(暗号化されたストアの
                    平文ブロブ: 適用しない)。
                    同期が失敗しても出力します。

            --encrypt  ストアのエンドツーエンド暗号化を有効にします(初回は新しいパスフレーズを
                    端末でエコーなしに 2 回尋ねるか、MEMO_PASSPHRASE または --passphrase-file
                    FILE から読みます)。以後ストアには暗号文だけが置かれ、どのデバイスも一度
                    パスフレーズが必要です。パスフレーズから導いた鍵はライブラリ(store-key
                    ファイル)に記憶されます。以後ライブラリは暗号化されたままです。平文で同期
                    することはなく、鍵ブロブのないストア(消去された、または新しいストア)には
                    鍵ブロブを戻します。'memo help store' を参照。
            --passphrase-file FILE  FILE の 1 行目をパスフレーズとして使う（これか MEMO_PASSPHRASE を
                    指定すると、鍵が記憶されていてもそのパスフレーズでストアを開けなければならない）

            例:
              memo sync --store ~/Dropbox/memos
              memo sync
              memo sync --json | jq .operationsApplied

            終了ステータス: 同期が終われば 0、ストアを使えなければ 1。ストアの一覧を取得できな
            かった同期はエラーだけを出力し、後でストアのエラー(書き込み失敗など)に遭った同期は
            要約とエラーを出力し、エラーの前に受け取ったものは保ちます。どちらの場合も最終同期
            時刻('memo status')は変わりません。
            コマンドラインの誤りは 2。暗号化されたストアのパスフレーズが違う、ない、または別の
            デバイスで変更された場合は 3 で、何も読み書きしません。
            """,
        "help.page.trash": """
            ゴミ箱内のメモを、'memo list' と同じく最近変更した順に表示します。

            --json  'memo list --json' と同じ。

            例:
              memo trash
              memo purge --all

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.page.undo": """
            この端末で memo が行ったメモの最後の編集('memo edit' や 'memo redo')を、現在の
            テキストへの変更として取り消します。その後にこの端末やほかの端末で行った編集は
            残ります。メモごとに直近 20 件の編集を覚えています。ゴミ箱への移動を戻すには
            'memo restore' を使います。

            --json  取り消し後のメモをオブジェクトで出力

            例:
              memo edit 3fa2 --text "しまった"
              memo undo 3fa2

            終了ステータス: 成功 0、失敗 1、コマンドラインの誤り 2。
            """,
        "help.summary.completion": "bash、zsh、fish 用の補完スクリプト",
        "help.summary.delete": "メモをゴミ箱に移動",
        "help.summary.demo": "2 台の端末が共有フォルダーで同じ状態になる様子を順に見る",
        "help.summary.edit": "エディターでメモを編集、またはテキストを置き換え・部分変更",
        "help.summary.export": "メモ 1 件またはすべてをテキストファイルに書き出す",
        "help.summary.help": "このヘルプ、コマンドごとのヘルプ、man ページ(--man)",
        "help.summary.import": "テキストや Markdown のファイル・フォルダーからメモを作成",
        "help.summary.list": "メモの一覧(最近変更した順)",
        "help.summary.new": "メモを作成(引数、ファイル、標準入力、エディターからテキストを入力)",
        "help.summary.purge": "ゴミ箱内のメモを完全に削除、またはゴミ箱を空にする",
        "help.summary.redo": "'memo undo' で取り消した編集をやり直す",
        "help.summary.restore": "ゴミ箱からメモを復元",
        "help.summary.search": "QUERY を含むメモ(大文字小文字、アクセント、全角半角、かなの種類は区別しない)",
        "help.summary.show": "メモのテキストをそのまま出力",
        "help.summary.history": "メモのバージョンを新しい順に一覧",
        "help.summary.diff": "メモの 2 つのバージョンの違いを表示",
        "help.summary.revert": "メモのテキストをあるバージョンの状態に戻す",
        "help.summary.store": "暗号化されたストアのパスフレーズを変更、またはデータ鍵を追加",
        "help.summary.status": "このライブラリのレプリカ ID、未同期の編集、最終同期",
        "help.summary.recover": "損傷後に保留された編集のテキスト(コピーまたはメモに復旧)",
        "help.summary.sync": "ストアのフォルダーと変更をやり取り(フォルダーは記憶される)",
        "help.summary.trash": "ゴミ箱内のメモの一覧",
        "help.summary.undo": "memo で行った最後の編集を取り消す",
        "help.title": "memo: 共有フォルダーで同期するオフラインファーストのメモ",
        "help.usageLabel": "使い方:",
        "skip.incomplete": "不完全(書き込み中またはダウンロード中)",
        "skip.corrupt": "破損",
        "skip.unknownVersion": "不明なバージョン(種類 {kind}、バージョン {version}、新しい MemoSync が書いたもの)",
        "skip.notMemoSync": "MemoSync のブロブではない",
        "skip.unreadable": "読み込めない",
        "skip.tooLarge": "大きすぎる({size} バイト、MemoSync のブロブは {limit} バイトを超えない)",
        "skip.notListed": "一覧から除外 - {problem}",
        "skip.problem.unreadable": "読み込めない",
        "skip.problem.symbolicLink": "シンボリックリンク(たどらない)",
        "skip.problem.specialFile": "通常のファイルやフォルダではない(FIFO、ソケット、デバイス)",
        "skip.problem.tooDeep": "{levels} 階層より深いフォルダ(たどらない)",
        "skip.withDetail": "{what}({detail})",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.what": "このメモのテキストは破損の後に保留された編集のためにライブラリが保管している記録にも含まれているため、完全には削除しませんでした",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.suggestion": "同期して破損で失われた分を取り戻してから、もう一度完全に削除してください。",
        "cli.warning.keptAsideAfterPurge": "警告: 破損の後に別に保管したライブラリファイルのコピーに、完全に削除したテキストがまだ残っている可能性があります: {files}。MemoSync はこれらを読み込んだり削除したりしません(破損で失われた分を取り戻すためのものです)。不要になったらご自身で削除してください",
    ]
}
