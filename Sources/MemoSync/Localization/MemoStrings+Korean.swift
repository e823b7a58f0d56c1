// The Korean (한국어) catalog of MemoSync's texts: the engine's error descriptions ("error."),
// the `memo` command line's messages ("cli.") and help pages ("help."). Every key is in
// every catalog with the same {placeholders} (MemoCLITests/CatalogTests checks it); see
// MemoStrings.swift.

extension MemoStrings {
    /// The Korean (한국어) texts.
    static let korean: [String: String] = [
        // MARK: error
        "error.BlobStoreError.encrypted.suggestion": "저장소의 암호를 입력하세요.",
        "error.BlobStoreError.denied.suggestion": "저장소의 자격 증명과 이 기기의 날짜와 시간을 확인한 뒤 다시 동기화하세요.",
        "error.BlobStoreError.retryLater.suggestion": "잠시 후 다시 동기화하세요.",
        "error.BlobStoreError.server.suggestion": "저장소의 주소, 버킷 또는 폴더를 확인한 뒤 다시 동기화하세요.",
        "error.BlobStoreError.full.suggestion": "동기화 저장소의 공간을 확보한 뒤 다시 동기화하세요.",
        "error.BlobStoreError.notFound.suggestion": "다시 동기화하세요.",
        "error.BlobStoreError.unavailable.suggestion": "저장소 연결을 확인한 뒤 다시 동기화하세요.",
        "error.DecodingError.checksumMismatch.reason": "손상되었습니다.",
        "error.DecodingError.notMemoSync.reason": "여기서 기대하는 종류의 MemoSync 데이터가 아닙니다.",
        "error.DecodingError.tooLarge.reason": "MemoSync가 읽을 수 있는 크기보다 큽니다.",
        "error.DecodingError.truncated.reason": "불완전합니다. 아직 쓰거나 내려받는 중이거나, 쓰던 쪽이 중단되었습니다.",
        "error.DecodingError.truncated.suggestion": "나중에 다시 동기화하세요.",
        "error.DecodingError.unsupportedVersion.reason": "더 새로운 MemoSync가 쓴 데이터입니다.",
        "error.DecodingError.unsupportedVersion.suggestion": "앱을 업데이트하세요.",
        "error.DiskError.full.suggestion": "디스크 공간을 확보하세요(그때까지 저장되지 않은 편집은 메모리에 보관됩니다).",
        "error.DiskError.io.suggestion": "다시 시도하고, 계속 실패하면 디스크를 점검하세요.",
        "error.DiskError.locked.suggestion": "이 라이브러리를 쓰고 있는 다른 앱이나 창을 닫으세요.",
        "error.DiskError.tooLarge.suggestion": "MemoSync는 이렇게 큰 파일을 쓰지 않으므로 라이브러리 폴더의 사본을 만든 뒤 백업에서 그 파일을 복원하세요.",
        "error.DiskError.unavailable.suggestion": "폴더가 있는지, 앱이 그 폴더를 쓸 수 있는지 확인하세요.",
        "error.EncryptionError.keyBlobMissing.suggestion": "저장소를 여전히 열 수 있는 기기를 먼저 동기화하거나, 이 라이브러리의 암호화를 명시적으로 끄세요.",
        "error.EncryptionError.currentPassphrase.suggestion": "저장소의 현재 암호를 입력하세요.",
        "error.EncryptionError.unknownKeyBlobVersion.suggestion": "앱을 업데이트하세요.",
        "error.EncryptionError.wrongPassphrase.suggestion": "암호를 확인한 뒤 다시 시도하세요.",
        "error.NotebookError.memoInTrash.reason": "휴지통에 있는 메모는 편집할 수 없습니다.",
        "error.NotebookError.memoInTrash.suggestion": "먼저 휴지통에서 복원하세요.",
        "error.NotebookError.memoNotFound.suggestion": "메모 목록을 새로 고치세요.",
        "error.ReplicaModel.notListed.description": "동기화가 저장소의 목록을 가져오지 못했습니다.",
        "error.ReplicaError.closed.suggestion": "라이브러리를 다시 여세요.",
        "error.ReplicaError.invalidHistoryRetention.suggestion": "1일부터 {max}일까지의 일수나 forever를 지정하세요.",
        "error.ReplicaError.invalidHistoryRetention.what": "기록 보관 기간 {days}일은 받아들일 수 없어 아무것도 바꾸지 않았습니다",
        "error.ReplicaError.encryptedLibrary.suggestion": "암호로 저장소를 열거나, 라이브러리의 암호화를 명시적으로 끄세요.",
        "error.ReplicaError.corruptLibrary.suggestion": "라이브러리 폴더를 그대로 두고 백업에서 복원하거나, 새 라이브러리로 동기화하세요.",
        "error.ReplicaError.syncInProgress.suggestion": "진행 중인 동기화가 끝날 때까지 기다리세요.",
        "error.ReplicaError.unknownLibraryVersion.reason": "이 버전에서는 파일 \"{file}\"(종류 {kind}, 형식 버전 {version})을(를) 읽을 수 없습니다.",
        "error.ReplicaError.unknownLibraryVersion.suggestion": "앱을 업데이트하세요.",
        "error.SyncProblem.suggestion": "잠시 후 다시 동기화하세요.",
        "error.TextError.clockExhausted.reason": "다른 기기의 변경이 MemoSync 한도에 이른 시계 값을 지니고 있습니다. 편집으로는 어떤 기기도 이 값에 이르지 않으며, 새 편집을 그 뒤에 둘 수 없습니다.",
        "error.TextError.clockExhausted.suggestion": "필요한 텍스트를 새 라이브러리로 복사하세요. 이런 변경은 저장소에 쓸 수 있는 사람만 보낼 수 있으며, 암호화된 저장소는 다른 사람이 쓰지 못하게 합니다.",
        "error.TextError.doesNotFit.suggestion": "메모의 텍스트를 다시 읽고 편집을 다시 하세요.",
        "error.TextError.inconsistent.reason": "다른 기기가 올바른 레플리카라면 만들 수 없는 변경을 보냈습니다.",
        "error.TextError.offsetInsideSurrogatePair.reason": "UTF-16 위치가 두 코드 단위로 된 문자(예: 이모지)를 가르고 있습니다.",
        "error.TextError.outOfBounds.reason": "위치를 계산한 뒤 텍스트가 바뀌었거나, 다른 텍스트에서 계산한 위치입니다.",
        "error.TextError.tooLarge.reason": "메모가 MemoSync의 한도에 도달했습니다.",
        "error.TextError.tooLarge.suggestion": "메모를 더 작은 메모 여러 개로 나누세요.",
        "error.TextError.unknownAnchor.reason": "위치가 가리키는 문자가 이 텍스트에 없습니다.",
        "error.sentence": "{what}.",
        "error.sentenceWithDetail": "{what}: {detail}.",
        "error.cause.permissionDenied": "권한이 없습니다",
        "error.cause.inTheWay": "같은 이름의 파일이 가로막고 있습니다",
        "error.cause.missing": "폴더나 파일이 없습니다",
        "error.cause.noSpace": "남은 공간이 없습니다",
        "error.cause.readOnly": "읽기 전용입니다",
        "error.cause.deviceFailed": "장치가 읽거나 쓰지 못했습니다",
        "error.cause.stillBeingWritten": "파일이 아직 쓰이는 중입니다",
        "error.cause.closed": "라이브러리가 닫혀 있습니다",
        "error.cause.cannotConnect": "서버에 연결할 수 없습니다",
        "error.cause.hostNotFound": "서버 이름을 찾을 수 없습니다",
        "error.cause.offline": "이 기기가 네트워크에 연결되어 있지 않습니다",
        "error.cause.serverBusy": "서버가 바쁩니다",
        "error.cause.badAnswer": "서버의 응답을 읽을 수 없습니다",
        "error.cause.badAddress": "저장소 주소가 올바르지 않습니다",
        "error.cause.insecure": "암호가 암호화되지 않은 http로 전송되므로 https가 필요합니다",
        "error.TextError.clockExhausted.what": "메모를 더 이상 바꿀 수 없습니다",
        "error.TextError.doesNotFit.what": "편집이 텍스트와 맞지 않습니다",
        "error.TextError.inconsistent.what": "메모의 변경 내용이 서로 맞지 않습니다",
        "error.TextError.tooLarge.what": "메모가 너무 커서 바꿀 수 없습니다",
        "error.TextError.range.detail": "범위 {lower}..<{upper}가 텍스트(길이 {length}) 밖에 있습니다",
        "error.TextError.offset.detail": "위치 {offset}이(가) 텍스트(길이 {length}) 밖에 있습니다",
        "error.TextError.surrogate.detail": "UTF-16 위치 {offset}이(가) 서로게이트 쌍의 가운데입니다",
        "error.NotebookError.memoNotFound.what": "메모가 없으며, 삭제되었을 수 있습니다",
        "error.NotebookError.memoExists.what": "메모가 이미 있습니다",
        "error.NotebookError.memoInTrash.what": "메모가 휴지통에 있습니다",
        "error.NotebookError.memoNotInTrash.what": "메모가 휴지통에 없습니다",
        "error.NotebookError.text.what": "메모를 바꿀 수 없습니다",
        "error.NotebookError.invalidDelta.what": "다른 기기에서 온 변경 내용이 서로 맞지 않습니다",
        "error.NotebookError.corruptMemo.what": "메모를 읽을 수 없습니다",
        "error.NotebookError.nothingToUndo.what": "이 메모에는 실행 취소하거나 다시 실행할 것이 없습니다",
        "error.NotebookError.history.what": "메모의 이전 버전을 표시할 수 없습니다",
        "error.NotebookError.history.notRetained.detail": "그 일부가 보존 기간보다 먼저 삭제되었습니다",
        "error.NotebookError.history.notHeld.detail": "이 기기에 아직 없습니다",
        "error.NotebookError.history.notRetained.reason": "삭제된 텍스트는 보존 기간 동안만 보관되며, 이 버전의 일부는 그보다 먼저 삭제되었습니다.",
        "error.NotebookError.history.notHeld.reason": "이 기기에는 아직 메모의 해당 버전이 없습니다.",
        "error.DecodingError.any.what": "데이터를 읽을 수 없습니다",
        "error.ReplicaError.closed.what": "라이브러리가 닫혀 있습니다",
        "error.ReplicaError.encryptedLibrary.what": "이 라이브러리는 암호화되어 저장소의 암호화를 통해서만 동기화하므로 아무것도 동기화하지 않았습니다",
        "error.ReplicaError.corruptLibrary.what": "라이브러리 파일 \"{file}\"이(가) 손상되었습니다",
        "error.ReplicaError.noSyncInProgress.what": "진행 중인 동기화가 없습니다",
        "error.ReplicaError.syncInProgress.what": "이미 동기화 중입니다",
        "error.ReplicaError.unknownLibraryVersion.what": "더 새로운 버전의 MemoSync가 쓴 라이브러리입니다",
        "error.ReplicaModel.save.what": "저장하지 못했습니다",
        "error.ReplicaModel.sync.what": "동기화하지 못했습니다",
        "error.ReplicaModel.unfinished.what": "동기화가 끝나지 않았습니다",
        "error.SyncProblem.list.what": "동기화 저장소의 목록을 가져올 수 없습니다",
        "error.SyncProblem.read.what": "동기화 저장소에서 파일을 읽을 수 없습니다",
        "error.SyncProblem.write.what": "동기화 저장소에 파일을 쓸 수 없습니다",
        "error.SyncProblem.delete.what": "동기화 저장소에서 오래된 파일을 지울 수 없습니다",
        "error.SyncProblem.local.what": "이 기기의 변경 사항을 동기화할 준비를 할 수 없습니다",
        "error.BlobStoreError.notFound.what": "동기화 저장소에 파일이 더 이상 없습니다",
        "error.BlobStoreError.invalidKey.what": "동기화 저장소가 파일 이름을 거부했습니다",
        "error.BlobStoreError.full.what": "동기화 저장소가 가득 찼습니다",
        "error.BlobStoreError.unavailable.what": "동기화 저장소에 연결할 수 없습니다",
        "error.BlobStoreError.io.what": "동기화 저장소에서 오류가 났습니다",
        "error.BlobStoreError.tooLarge.what": "동기화 저장소의 파일이 너무 큽니다",
        "error.BlobStoreError.size": "{size}바이트로 한도 {limit}바이트를 넘습니다",
        "error.BlobStoreError.cancelled.what": "동기화가 취소되었습니다",
        "error.BlobStoreError.undecryptable.what": "동기화 저장소의 파일을 받아들이지 않았습니다",
        "error.BlobStoreError.encrypted.what": "동기화 저장소가 암호화되어 있어 암호로만 동기화할 수 있습니다",
        "error.BlobStoreError.denied.what": "동기화 저장소가 이 기기의 자격 증명을 거부했습니다",
        "error.BlobStoreError.server.what": "동기화 저장소가 오류로 응답했습니다",
        "error.BlobStoreError.retryLater.what": "동기화 저장소가 바쁩니다",
        "error.BlobStoreError.notFound.detail": "저장소에 파일이 더 이상 없습니다",
        "error.BlobStoreError.invalidKey.detail": "저장소가 파일 이름을 거부했습니다",
        "error.BlobStoreError.full.detail": "저장소가 가득 찼습니다",
        "error.BlobStoreError.unavailable.detail": "저장소에 연결할 수 없습니다",
        "error.BlobStoreError.io.detail": "저장소에서 오류가 났습니다",
        "error.BlobStoreError.tooLarge.detail": "파일이 너무 큽니다({size}바이트, 한도 {limit}바이트)",
        "error.BlobStoreError.cancelled.detail": "동기화가 취소되었습니다",
        "error.BlobStoreError.undecryptable.detail": "파일을 복호화할 수 없습니다",
        "error.BlobStoreError.encrypted.detail": "저장소가 암호화되어 있습니다",
        "error.BlobStoreError.denied.detail": "서버가 자격 증명을 거부했습니다({code})",
        "error.BlobStoreError.server.detail": "서버가 HTTP {status} {code}(으)로 응답했습니다",
        "error.BlobStoreError.retryLater.detail": "{seconds}초 뒤에 다시 시도하라고 했습니다",
        "error.EncryptionError.wrongPassphrase.what": "이 저장소의 암호가 아닙니다",
        "error.EncryptionError.passphraseRequired.what": "동기화 저장소가 암호화되어 있어 동기화하려면 암호가 필요합니다",
        "error.EncryptionError.passphraseChanged.what": "다른 기기에서 저장소의 암호가 바뀌었습니다",
        "error.EncryptionError.notEncrypted.what": "동기화 저장소가 암호화되어 있지 않습니다",
        "error.EncryptionError.alreadyEncrypted.what": "동기화 저장소는 이미 암호화되어 있습니다",
        "error.EncryptionError.keyBlobMissing.what": "동기화 저장소에 키 블롭이 없고 암호화된 이 라이브러리에도 되돌려 놓을 키 블롭이 없어 아무것도 동기화하지 않았습니다",
        "error.EncryptionError.failed.what": "암호화 처리에 실패했습니다",
        "error.EncryptionError.damagedKeyBlob.detail": "저장소의 키 블롭이 손상되었습니다",
        "error.EncryptionError.unknownKeyBlobVersion.detail": "저장소의 키 블롭 버전 {version}을(를) 이 앱이 모릅니다",
        "error.EncryptionError.unacceptableParameters.detail": "키 유도 매개변수를 받아들일 수 없습니다",
        "error.EncryptionError.platform.detail": "시스템의 암호 기능이 실패했습니다",
        "error.DiskError.unavailable.what": "라이브러리 폴더를 쓸 수 없습니다",
        "error.DiskError.locked.what": "다른 앱이 라이브러리를 사용 중입니다",
        "error.DiskError.alreadyOpen.what": "이 앱에서 라이브러리가 이미 열려 있습니다",
        "error.DiskError.alreadyOpen.suggestion": "이 앱에서 이미 연 라이브러리를 쓰거나 먼저 닫으세요.",
        "error.DiskError.full.what": "디스크가 가득 찼습니다",
        "error.DiskError.io.what": "라이브러리를 쓰거나 읽을 수 없습니다",
        "error.DiskError.tooLarge.what": "라이브러리 파일 {file}이(가) 너무 커서 읽을 수 없으므로 아무것도 바꾸지 않았습니다",
        "error.DiskError.tooLarge.size": "{size}바이트로 MemoSync가 읽는 {limit}바이트를 넘습니다",
        "error.DiskError.unavailable.detail": "라이브러리 폴더를 쓸 수 없습니다",
        "error.DiskError.locked.detail": "다른 앱이 라이브러리를 사용 중입니다",
        "error.DiskError.alreadyOpen.detail": "이 앱에서 라이브러리가 이미 열려 있습니다",
        "error.DiskError.full.detail": "디스크가 가득 찼습니다",
        "error.DiskError.io.detail": "디스크에서 오류가 났습니다",
        "error.DiskError.tooLarge.detail": "라이브러리 파일 {file}이(가) 너무 큽니다",
        "error.StoreLocationError.what": "동기화 저장소를 쓸 수 없습니다",
        // MARK: cli
        "cli.storeKind.s3": "S3 버킷 {location}",
        "cli.storeKind.webDAV": "WebDAV 폴더 {location}",
        "cli.andMore": "외 {count}개",
        "cli.count.blob.one": "블롭 {count}개",
        "cli.count.blob.other": "블롭 {count}개",
        "cli.count.byte.one": "{count}바이트",
        "cli.count.byte.other": "{count}바이트",
        "cli.count.character.one": "{count}자",
        "cli.count.character.other": "{count}자",
        "cli.count.day.one": "{count}일",
        "cli.count.day.other": "{count}일",
        "cli.count.file.one": "파일 {count}개",
        "cli.count.file.other": "파일 {count}개",
        "cli.count.memo.one": "메모 {count}개",
        "cli.count.memo.other": "메모 {count}개",
        "cli.count.operation.one": "작업 {count}개",
        "cli.count.operation.other": "작업 {count}개",
        "cli.count.storeEntry.one": "저장소 항목 {count}개",
        "cli.count.storeEntry.other": "저장소 항목 {count}개",
        "cli.count.storeError.one": "저장소 오류 {count}개",
        "cli.count.storeError.other": "저장소 오류 {count}개",
        "cli.count.storeOperation.one": "저장소 작업 {count}개",
        "cli.count.storeOperation.other": "저장소 작업 {count}개",
        "cli.deleted": "{id} {title} 메모를 휴지통으로 옮겼습니다('memo restore {id}'로 되돌릴 수 있습니다).",
        "cli.demo.bobGets": "밥이 동기화해서 받습니다({read} 읽음, {applied} 적용):",
        "cli.demo.byHand": "직접 해 보세요:",
        "cli.demo.converged": "수렴: 예",
        "cli.demo.diverged": "수렴: 아니요",
        "cli.demo.failed": "데모가 실패했습니다: {error}",
        "cli.demo.folder": "공유 폴더(Dropbox, iCloud Drive, Syncthing이 맞춰 주는 어떤 폴더든 됩니다): {path}",
        "cli.demo.notAFolder": "{path}은(는) 폴더가 아니라 파일입니다. 새 폴더나 빈 폴더를 지정하세요.",
        "cli.demo.notItsFolder": "{path}에 데모가 만들지 않은 파일이 있습니다. 새 폴더나 빈 폴더를 지정하세요(데모는 이전 데모가 만든 것만 바꿉니다).",
        "cli.demo.unusableFolder": "데모가 {path}을(를) 쓸 수 없습니다: {error}",
        "cli.demo.missing": "(없음)",
        "cli.demo.published": "{written} 올림, {read} 읽음",
        "cli.demo.publishedApplied": "{written} 올림, {read} 읽음, {applied} 적용",
        "cli.demo.readApplied": "{read} 읽음, {applied} 적용",
        "cli.demo.step1": "기기 두 대, 각자 자기 라이브러리가 있습니다(이번 세션의 새 레플리카 ID와 함께):",
        "cli.demo.step2": "앨리스가 메모를 쓰고 동기화합니다. 다음 명령과 같습니다:",
        "cli.demo.step3": "둘 다 오프라인에서 같은 메모를 편집합니다:",
        "cli.demo.step4": "폴더를 통해 차례로 동기화합니다(어떤 순서든 결과는 같습니다):",
        "cli.demo.step5": "둘 다 두 사람의 편집이 모두 담긴 같은 메모를 갖게 됩니다:",
        "cli.demo.title": "MemoSync 데모: {path}",
        "cli.demo.usage": "사용법: memo demo [--dir DIR]",
        "cli.editorExited": "종료되었습니다(종료 상태 {status})",
        "cli.editorSignalled": "중단되었습니다(시그널 {signal})",
        "cli.error.alreadyInTrash": "{id} 메모는 이미 휴지통에 있습니다",
        "cli.error.ambiguousID": """
            ID '{id}'가 모호합니다. {count}개의 메모가 이것으로 시작합니다. 더 많은 자리를 주세요:
            {list}
            """,
        "cli.error.argumentNotUTF8": "{index}번째 인수는 올바른 UTF-8이 아닙니다. memo는 텍스트를 받은 그대로 저장하므로 거부합니다",
        "cli.error.cannotCreateFolder": "폴더({path})를 만들 수 없습니다: {error}",
        "cli.error.cannotCreateTemporary": "{path}에 임시 파일을 만들 수 없습니다: {error}",
        "cli.error.cannotOpenLibrary": "{path}의 라이브러리를 열 수 없습니다: {error}",
        "cli.error.cannotRead": "{path} 파일을 읽을 수 없습니다: {error}",
        "cli.error.cannotReadInput": "표준 입력을 읽을 수 없습니다: {error}",
        "cli.error.cannotReadLibrary": "{path}의 라이브러리를 읽을 수 없습니다: {error}",
        "cli.error.cannotReadPassphraseFile": "암호 파일({path})을 읽을 수 없습니다",
        "cli.error.cannotRememberKey": "저장소 키를 {path}에 기억해 둘 수 없습니다",
        "cli.error.cannotSave": "{path}의 라이브러리를 저장할 수 없습니다: {error}. 이 명령의 변경은 저장되지 않았습니다. 원인을 해결한 뒤 명령을 다시 실행하세요",
        "cli.error.cannotUseBucket": "S3 버킷({location})을 쓸 수 없습니다: {error}",
        "cli.error.cannotUseStore": "저장소 폴더({path})를 쓸 수 없습니다: {error}",
        "cli.error.cannotUseWebDAVFolder": "WebDAV 폴더({location})를 쓸 수 없습니다: {error}",
        "cli.error.cannotWrite": "{path}에 쓸 수 없습니다: {error}",
        "cli.error.cannotWriteOutput": "표준 출력에 쓸 수 없습니다: {error}",
        "cli.error.completionNeedsShell": "'completion'에는 셸 이름이 필요합니다: bash, zsh, fish",
        "cli.error.couldNotSync": "저장소({path})와 동기화할 수 없습니다: {error}. 아무것도 읽거나 쓰지 않았습니다",
        "cli.error.deleteDoesNotFit": "위치 {offset}에서 {count}를 지울 수 없습니다{which}. 텍스트는 {length}(유니코드 스칼라)뿐입니다. 아무것도 바꾸지 않았습니다",
        "cli.error.editedNotUTF8": "편집한 텍스트가 올바른 UTF-8이 아닙니다. 메모는 바뀌지 않았습니다{kept}",
        "cli.error.editedUnreadable": "편집한 파일({path})을 읽을 수 없습니다: {error}. 메모는 바뀌지 않았습니다{kept}",
        "cli.error.editorEmpty": "텍스트가 비어 있어 메모를 만들지 않았습니다('memo new \"\"'는 빈 메모를 만듭니다)",
        "cli.error.editorFailed": "편집기 '{command}'가 {how}. 메모는 바뀌지 않았습니다{kept}",
        "cli.error.editorNotStarted": "편집기 '{command}'를 실행할 수 없습니다: {error}",
        "cli.error.emptyPath": "빈 경로가 주어졌습니다",
        "cli.error.encryptionFailed": "저장소({path})의 암호화 처리에 실패했습니다: {error}",
        "cli.error.decryptKeysNotDeleted": "{path}의 암호화를 끌 수 없습니다: 키 블롭을 지우지 못했습니다: {error}. 이 라이브러리와 저장소는 그대로 암호화되어 있고 잃은 것은 없습니다. 'memo store decrypt'를 다시 실행하세요",
        "cli.error.decryptLibraryStaysEncrypted": "이 라이브러리의 암호화를 끌 수 없습니다: {error}. 저장소의 키 블롭은 지워졌지만 라이브러리는 그대로 암호화되어 있고(다음 동기화가 키 블롭을 되돌려 놓습니다) 잃은 것은 없습니다. 'memo store decrypt'를 다시 실행하세요",
        "cli.error.decryptNotPublished": "이 라이브러리의 암호화는 꺼졌지만 메모를 {path}에 일반 텍스트로 게시하지 못했습니다: {error}. 게시하려면 'memo sync'를 실행하세요",
        "cli.error.exportAllNoID": "'export --all DIR'은 모든 메모를 내보냅니다. 메모 ID를 받지 않습니다",
        "cli.error.exportAllNoOutput": "--output은 파일 하나를 가리킵니다. --all에는 폴더만 주세요",
        "cli.error.exportFailed": "{path}에 쓸 수 없습니다: {error}. 아무것도 바뀌지 않았습니다(이미 있던 파일은 내용이 그대로이고, 새 파일은 남지 않았습니다)",
        "cli.error.exportWouldReplace": """
            {path} 폴더에서 {count}를 덮어쓰게 됩니다. 아무것도 쓰지 않았습니다(덮어쓰려면 --force):
            {files}
            """,
        "cli.error.fileNotUTF8": "{path} 파일은 UTF-8 텍스트가 아닙니다. 아무것도 바꾸지 않았습니다",
        "cli.error.forceOnlyAll": "--force는 'export --all DIR'에만 쓸 수 있습니다",
        "cli.error.helpManAlone": "'help --man'은 명령 이름을 받지 않습니다. man 페이지에 모든 명령이 있습니다",
        "cli.error.helpOneCommand": "'help'는 명령 이름을 하나까지만 받습니다",
        "cli.error.historyUnreadable": "실행 취소 기록 파일({path})을 읽을 수 없습니다({error}). 삭제하면 새로 시작합니다",
        "cli.history.notKeptAside": "올바른 JSON이 아니고, {kept}(으)로 따로 보관할 수도 없었습니다: {error}",
        "cli.error.importNeedsPaths": "'import'에는 가져올 파일이나 폴더가 필요합니다",
        "cli.error.importRefused": """
            {count}를 가져올 수 없어 아무것도 가져오지 않았습니다:
            {files}
            """,
        "cli.error.inputEmpty": "표준 입력이 비어 있어 메모를 만들지 않았습니다('memo new \"\"'는 빈 메모를 만듭니다)",
        "cli.error.inputNotUTF8": "표준 입력이 UTF-8 텍스트가 아닙니다. 아무것도 바꾸지 않았습니다",
        "cli.error.insertDoesNotFit": "위치 {offset}에 넣을 수 없습니다{which}. 텍스트는 {length}(유니코드 스칼라)뿐입니다. 아무것도 바꾸지 않았습니다",
        "cli.error.invalidStore": "저장소({store})를 쓸 수 없습니다: {error}",
        "cli.error.json": "JSON을 쓸 수 없습니다: {error}",
        "cli.error.libraryBusy": "다른 memo 명령(동기화나 변경)이 {seconds}초 동안 {path}의 라이브러리를 쓰고 있습니다. 끝난 뒤 다시 시도하세요",
        "cli.error.memoInTrash": "{id} 메모는 휴지통에 있습니다. 먼저 복원하세요('memo restore {id}')",
        "cli.error.needsID": "'{command}'에는 메모 ID가 필요합니다('memo list'로 볼 수 있습니다)",
        "cli.error.newPassphraseNeeded": "새 암호가 필요합니다. {variable}, 암호 파일 또는 터미널에서 입력하세요",
        "cli.error.noArguments": "'{command}'는 인수를 받지 않습니다(받은 값 '{argument}'; 'memo help {command}' 참고)",
        "cli.error.noCommand": "명령이 없습니다('memo help'로 명령 목록을 볼 수 있습니다)",
        "cli.error.noEditor": "편집기가 없습니다. VISUAL이나 EDITOR를 설정하거나, --text TEXT, --text-file PATH(또는 --insert/--delete)로 텍스트를 주세요",
        "cli.error.noHome": "홈 폴더를 찾을 수 없습니다. HOME을 설정하거나 --library PATH 또는 MEMO_LIBRARY로 라이브러리 폴더를 주세요",
        "cli.error.libraryIsAFile": "{path}은(는) 파일이며 라이브러리 폴더가 아닙니다. --library에는 라이브러리 폴더(또는 'memo new'로 만들 새 폴더의 경로)를 지정하세요",
        "cli.error.libraryNotPermitted": "라이브러리 폴더 {path}을(를) 읽을 수 없습니다: 권한이 없습니다. 소유자와 권한을 확인하거나(ls -ld {path}), 폴더 소유자로 memo를 실행하세요",
        "cli.error.libraryReadOnly": "라이브러리 폴더 {path}에 쓸 수 없습니다: 읽기 전용 파일 시스템에 있습니다 (읽을 수는 있지만 바꿀 수 없습니다). 읽기·쓰기로 마운트하거나, 쓸 수 있는 디스크의 라이브러리를 지정하세요",
        "cli.error.libraryNotWritable": "라이브러리 폴더 {path}에 쓸 수 없습니다: 권한이 없습니다 (읽을 수는 있지만 바꿀 수 없습니다). 소유자와 권한을 확인하거나(ls -ld {path}), 폴더 소유자로 memo를 실행하세요",
        "cli.error.noLibrary": "{path}에 라이브러리가 없습니다. 'memo new'로 만들거나 'memo sync --store PATH'로 저장소에서 가져오세요",
        "cli.error.noMatchingID": "'{id}'로 시작하는 ID의 메모가 없습니다('{list}'로 ID를 볼 수 있습니다)",
        "cli.error.noStoreYet": "아직 저장소 폴더가 없습니다. 'memo sync --store PATH'(기기끼리 공유하는 폴더, s3://BUCKET/PREFIX 또는 WebDAV https:// URL)를 한 번 실행하면 이후 동기화는 이를 기억합니다",
        "cli.error.noSuchMemo": "{id} 메모가 없습니다",
        "cli.error.notAFolder": "{path} 경로에 폴더가 아닌 것이 이미 있습니다",
        "cli.error.notAnID": "'{id}'는 메모 ID가 아닙니다. ID는 최대 32자리 16진수(0-9, a-f)입니다. '{list}'로 볼 수 있습니다",
        "cli.error.notInTrash": "{id} 메모는 휴지통에 없습니다",
        "cli.error.notWholeNumber": "{what}는 0 이상의 정수(글자 수)여야 합니다(받은 값 '{value}')",
        "cli.error.badPort": "{what}에는 0부터 65535까지의 포트 번호가 필요합니다(받은 값 '{value}')",
        "cli.error.badSyncInterval": "--sync-interval에는 1부터 86400까지의 초 단위 정수가 필요합니다(받은 값 '{value}')",
        "cli.error.listenIPv6": "memo serve는 127.0.0.1 같은 IPv4 주소에서만 연결을 받습니다(받은 값 '{value}')",
        "cli.error.nothingToRedo": "메모 {id}에 다시 적용할 편집이 없습니다",
        "cli.error.nothingToUndo": "메모 {id}에 취소할 편집이 없습니다. 'memo undo'는 이 기기에서 memo로 한 편집을 취소합니다",
        "cli.error.atOrBefore": "memo show에는 --at VERSION과 --before TIME 중 하나만 지정합니다",
        "cli.error.keepValue": "--keep에는 1부터 {max}까지의 일수나 forever를 지정합니다(\"{value}\"가 아님)",
        "cli.historyKept": "삭제된 텍스트를 {period} 보관합니다.",
        "cli.historyDropped": "그보다 오래된 삭제된 텍스트 {count}를 버렸습니다.",
        "cli.period.forever": "영구히",
        "cli.period.days": "{days} 동안",
        "cli.error.notATime": "'{time}'은(는) 시각이 아닙니다. memo가 출력하는 형식(2026-11-20 18:30 또는 2026-11-20)이나 ISO 8601(2026-11-20T18:30:00Z)로 지정하세요",
        "cli.error.noVersionBefore": "메모 {id}에 {time} 이전에 만든 버전이 없습니다. 'memo history {id}'로 목록을 볼 수 있습니다",
        "cli.error.diffArguments": "memo diff에는 메모 ID와 최대 두 개의 버전을 지정합니다: memo diff ID [FROM [TO]]",
        "cli.error.revertArguments": "memo revert에는 메모 ID와 버전 하나를 지정합니다: memo revert ID VERSION",
        "cli.error.notAVersion": "'{version}'은(는) 메모 {id}의 버전이 아닙니다. 'memo history {id}'가 출력하는 16진수 중 4~8자리를 지정하세요",
        "cli.error.noSuchVersion": "메모 {id}에 버전 {version}이(가) 없습니다. 'memo history {id}'로 목록을 볼 수 있습니다",
        "cli.error.ambiguousVersion": "{version}은(는) 메모 {id}의 버전 {count}개와 일치합니다. 자릿수를 더 지정하세요",
        "cli.error.cannotReadHistory": "메모 {id}의 기록을 표시할 수 없습니다: {error}",
        "cli.history.thisDevice": "이 기기",
        "cli.error.numberTooLarge": "{what}가 너무 큽니다(받은 값 {value})",
        "cli.error.oneID": "'{command}'는 메모 ID를 하나만 받습니다('{argument}'도 주어졌습니다)",
        "cli.error.optionNeeds": "{option} 옵션에 필요한 것: {what}",
        "cli.error.optionNotForCommand": "{option} 옵션은 '{command}'에 쓸 수 없습니다('memo help {command}' 참고)",
        "cli.error.optionTakesNoValue": "{option} 옵션은 값을 받지 않습니다",
        "cli.error.optionTakesValues": "{option} 옵션은 값 {count}개를 받습니다. 각각 따로 주세요",
        "cli.error.optionTwice": "{option} 옵션이 두 번 주어졌습니다",
        "cli.error.passphraseChanged": "다른 기기에서 저장소({path})의 암호가 바뀌어 새 암호가 필요합니다. MEMO_PASSPHRASE, --passphrase-file FILE 또는 터미널에서 입력하세요. 아무것도 읽거나 쓰지 않았습니다",
        "cli.error.passphraseNotUTF8": "암호가 올바른 UTF-8이 아닙니다",
        "cli.error.passphraseRequired": "저장소({path})가 암호화되어 있어 암호가 필요합니다. MEMO_PASSPHRASE, --passphrase-file FILE 또는 터미널에서 입력하세요. 아무것도 읽거나 쓰지 않았습니다",
        "cli.error.passphraseTooShort": "암호가 너무 짧습니다(최소 {count}자. 단어 몇 개를 이어 쓰는 것이 가장 좋습니다)",
        "cli.error.passphrasesDiffer": "두 번 입력한 암호가 서로 다릅니다. 아무것도 바꾸지 않았습니다",
        "cli.error.plainReadBeforeEncryptFailed": "암호화를 켜기 전에 암호화되지 않은 저장소를 읽지 못했습니다: {error}. 암호화는 아직 꺼져 있습니다",
        "cli.error.purgeAllAlone": "'purge --all'은 휴지통을 비웁니다. 메모 ID를 받지 않습니다",
        "cli.error.purgeNeedsIDs": "'purge'에는 휴지통에 있는 메모의 ID나, 휴지통을 비우는 --all이 필요합니다",
        "cli.error.purgeNotInTrash": "{id} 메모는 휴지통에 없습니다. 휴지통에 있는 메모만 완전히 삭제할 수 있습니다(먼저 'memo delete {id}'). 아무것도 삭제하지 않았습니다",
        "cli.error.readEmpty": "읽은 텍스트가 비어 있어 메모를 만들지 않았습니다('memo new \"\"'는 빈 메모를 만듭니다)",
        "cli.error.searchNeedsQuery": "'search'에는 검색할 내용이 필요합니다",
        "cli.error.settingsUnreadable": "설정 파일({path})을 읽을 수 없습니다({error}). 고치거나 삭제한 뒤 'memo sync --store PATH'를 다시 실행하세요",
        "cli.error.storeCommandNoStore": "아직 저장소 폴더가 없습니다. --store PATH를 주거나 'memo sync --store PATH'로 한 번 동기화하세요",
        "cli.error.storeMissing": "저장소 폴더({path})가 없습니다(드라이브나 공유 폴더가 연결되어 있나요?). 다시 만들려면 'memo sync --store {path}'를 실행하세요",
        "cli.error.storeNeedsAction": "'store'에는 다음 중 하나가 필요합니다: {actions}('memo help store' 참고)",
        "cli.error.keyBlobMissing": "저장소 {path}에 키 블롭이 없고, 암호화된 이 라이브러리에도 되돌려 놓을 키 블롭이 없습니다. 아무것도 동기화하지 않았고 평문으로 쓰지 않았습니다. 저장소를 여전히 열 수 있는 기기를 먼저 동기화하거나 'memo store decrypt'로 암호화를 끄세요",
        "cli.error.keyBlobDamaged": "저장소 {path}의 키 블롭 {key}이(가) 손상되었습니다({reason}). 아무것도 동기화하지 않았습니다. 이 저장소와 동기화한 적이 있는 기기에 사본이 있습니다. 그 기기에서 'memo sync'를 실행해 사본을 되돌려 놓은 뒤 여기서 다시 동기화하세요",
        "cli.error.keyBlobNotRecorded": "저장소 {path}에는 새 키 블롭이 있지만 이 라이브러리에 기록하지 못했습니다({error}). 지금 'memo sync'를 실행하면 기록됩니다(그 전에 저장소가 키 블롭을 잃으면 이전 키 블롭이 되돌아갑니다)",
        "cli.error.rememberedKeyDamaged": "이 라이브러리가 저장소 {path}에 대해 기억해 둔 키({file})가 손상되었습니다. 라이브러리가 가진 저장소 키 블롭 사본을 열지 못합니다. MEMO_PASSPHRASE, --passphrase-file FILE 또는 터미널에서 암호를 입력하면 다시 기억해 둡니다. 아무것도 읽거나 쓰지 않았습니다",
        "cli.error.libraryNotEncrypted": "이 라이브러리는 암호화되어 있지 않습니다. 끌 것이 없습니다",
        "cli.error.storeNotEncrypted": "저장소 {path}는 암호화되어 있지 않습니다. 바꿀 암호도, 교체할 키도 없습니다('memo sync --encrypt'로 암호화를 켭니다)",
        "cli.note.keyBlobRestored": "{path}에 키 블롭이 없었습니다(지워졌거나, 키 블롭이 삭제되었거나, 새 저장소). 이 라이브러리의 키 블롭을 되돌려 놓았고 저장소는 계속 암호화됩니다",
        "cli.note.keyBlobRepaired": "{path}의 키 블롭 {key}이(가) 손상되어 있었습니다. 이 라이브러리의 사본을 되돌려 놓았고 저장소는 계속 암호화됩니다",
        "cli.note.keyBlobRolledBack": "{path}에는 이 라이브러리의 것보다 오래된 키 블롭만 있었습니다(백업에서 복원되었거나 되돌려짐). 이 라이브러리의 키 블롭을 되돌려 놓았으므로 바꾼 암호나 교체한 키는 그대로 유지됩니다",
        "cli.note.plainBlobsIgnored": "암호화된 저장소 {path}의 평문 {count}을(를) 적용하지 않았습니다(암호화를 거쳐 쓰이지 않음. 'memo sync --json'이 나열합니다)",
        "cli.prompt.passphraseToDecrypt": "{path}의 암호화를 끄기 위한 암호: ",
        "cli.status.encrypted": "켜짐: 이 라이브러리는 암호화해서만 동기화하고 저장소에는 암호문이 있습니다(암호를 물음)",
        "cli.status.encryptedRemembered": "켜짐: 이 라이브러리는 암호화해서만 동기화하고 저장소에는 암호문이 있습니다(키를 기억함)",
        "cli.status.encryption": "암호화:",
        "cli.status.history": "기록:",
        "cli.status.heldBack": "보류된 작업:",
        "cli.status.heldBackValue": "{count}가 기반이 되는 작업을 기다립니다(손상된 파일과 함께 잃었거나 아직 받지 못함). 그 작업을 올린 기기가 있으면 동기화로 받아 적용됩니다('memo recover'가 그 텍스트를 보여 주고, 'memo recover --restore'가 새 메모로 되살림)",
        "cli.recover.none": "보류된 편집이 없습니다. 이 라이브러리에 저장된 편집은 모두 보입니다.",
        "cli.recover.intro": "{count}가 기반이 되는 작업을 기다립니다(손상된 파일과 함께 잃었거나 아직 받지 못함). 그 작업들이 입력한 텍스트를 메모별로 입력한 순서대로 보여 줍니다(다른 위치에 넣은 글자는 새 줄에서 시작). 기다리는 작업을 동기화가 되찾아 오면 저절로 적용됩니다:",
        "cli.recover.memo": "메모 {id} ({count}): {title}",
        "cli.recover.notHere": "이 라이브러리에 없음(메모를 만든 작업도 기다리는 중)",
        "cli.recover.noText": "(텍스트 없음: 삭제, 휴지통 이동 또는 복원뿐)",
        "cli.recover.restored": "메모 {id}(으)로 되살렸습니다: {title}",
        "cli.recover.alreadyRestored": "이미 되살린 메모 {id}: {title}",
        "cli.recover.nothingToRestore": "되살릴 것이 없습니다. 텍스트를 넣는 보류된 작업이 없습니다.",
        "cli.recover.heading": "“{title}”에서 되살린 편집",
        "cli.recover.stillWaiting": "보류된 작업은 계속 기다리며, 기다리는 작업을 동기화가 가져오면 저절로 적용됩니다. 그때 되살린 메모는 그 옆에 그대로 남습니다.",
        "cli.status.keptAside": "따로 둔 파일:",
        "cli.status.keptAsideValue": "라이브러리 폴더의 {files}(손상되었거나 남은 사본. memo는 읽지도 지우지도 않습니다)",
        "cli.status.historyValue": "삭제된 텍스트를 {period} 보관('memo history --keep'으로 바꿉니다)",
        "cli.status.plain": "꺼짐: 마지막 동기화 때 저장소에는 평문이 있었습니다('memo sync --encrypt'로 켭니다)",
        "cli.status.plainNoStore": "꺼짐('memo sync --encrypt'로 켭니다)",
        "cli.store.decryptExplained": "이 라이브러리와 {path}의 암호화를 끕니다. 저장소의 키 블롭과 암호화된 블롭을 삭제하고, 모든 메모를 평문으로 다시 올립니다. 저장소를 읽을 수 있는 누구나 읽을 수 있게 됩니다. 암호화해서 동기화한 다른 기기는 각 기기에서 'memo store decrypt'를 실행할 때까지 계속 암호화합니다(키 블롭도 되돌려 놓습니다).",
        "cli.store.decrypted": "이 라이브러리와 {path}의 암호화가 꺼졌습니다. 이제 저장소에는 평문이 있습니다.",
        "cli.error.storeOptionsNeedS3": "--endpoint와 --region은 --store s3://BUCKET/PREFIX와 함께 써야 합니다",
        "cli.error.syncFailed": "동기화에 실패했습니다: {error}",
        "cli.error.syncUnfinished": "동기화가 끝나지 않았습니다: {error}",
        "cli.error.textNotCombined": "--text는 텍스트 전체를 바꿉니다. --insert나 --delete와 함께 쓸 수 없습니다",
        "cli.error.textOnce": "텍스트는 한 번만 주세요(--text 또는 --text-file)",
        "cli.error.dashStandsAlone": "'-'(표준 입력의 텍스트)는 단독으로만 씁니다. '-'로 시작하는 텍스트는 이렇게 쓰세요: memo new -- '- 텍스트'",
        "cli.error.textTwoWays": "텍스트는 인수나 --text-file 중 하나로만 주세요",
        "cli.error.unexpectedNumber": "예상하지 못한 숫자 {number}. 대시로 시작하는 텍스트는 앞에 --를 붙이세요",
        "cli.error.unknownCommand": "알 수 없는 명령 '{command}'('memo help'로 명령 목록을 볼 수 있습니다)",
        "cli.error.unknownOption": "알 수 없는 옵션 {option}('memo help' 참고)",
        "cli.error.wrongPassphrase": "이 암호로는 저장소({path})를 열 수 없습니다. 아무것도 읽거나 쓰지 않았습니다",
        "cli.exported": "{count}를 {path}에 내보냈습니다.",
        "cli.file.diskFull": "디스크가 가득 찼습니다",
        "cli.file.exists": "같은 이름의 항목이 이미 있습니다",
        "cli.file.readOnly": "읽기 전용 디스크입니다",
        "cli.file.unknownFailure": "파일 작업에 실패했습니다",
        "cli.file.failed": "시스템 메시지: {reason}",
        "cli.file.isFolder": "파일이 아니라 폴더입니다",
        "cli.file.missing": "그런 파일이 없습니다",
        "cli.file.permissionDenied": "읽을 권한이 없습니다",
        "cli.file.tooLarge": "{limit}보다 큽니다",
        "cli.file.isSocket": "소켓이라서 memo가 쓰지 않습니다",
        "cli.file.closed": "받는 쪽이 닫혔습니다 (파이프의 읽는 쪽, 또는 터미널)",
        "cli.file.ioError": "디스크에 오류가 났습니다 (입출력 오류)",
        "cli.file.writePermissionDenied": "쓸 권한이 없습니다",
        "cli.import.linkOutside": "{path}: 폴더 밖의 파일을 가리키는 심볼릭 링크입니다(따라가지 않습니다. 가져오려면 그 파일을 직접 지정하세요)",
        "cli.import.notRegularFile": "{path}: 일반 파일이 아닙니다(파이프, 소켓 또는 장치: 열지 않습니다. 읽으려면 명령줄에서 직접 지정하세요)",
        "cli.import.missing": "{path}: 그런 파일이나 폴더가 없습니다",
        "cli.import.notUTF8": "{path}: UTF-8 텍스트가 아닙니다(다른 인코딩이거나 텍스트가 아님). 먼저 UTF-8로 저장하세요",
        "cli.import.unreadable": "{path}: 읽을 수 없습니다({error})",
        "cli.import.utf16": "{path}: UTF-16 텍스트입니다. 먼저 UTF-8로 저장하세요",
        "cli.importSkipped": "이미 같은 내용의 메모가 있어 {count}를 건너뛰었습니다(그래도 가져오려면 --again):",
        "cli.imported": "{count}를 가져왔습니다.",
        "cli.inTrashMark": "(휴지통에 있음)",
        "cli.listEmpty": "(메모 없음)",
        "cli.note.credentialsReadableByOthers": "{path} 파일을 이 컴퓨터의 다른 사용자가 읽을 수 있습니다. 저장소 자격 증명이 들어 있습니다(chmod 600 {path})",
        "cli.note.createdLibrary": "{path}에 새 라이브러리를 만들었습니다",
        "cli.note.removedNewLibrary": "{path}의 새 라이브러리를 다시 지웠습니다. 동기화된 것이 없습니다",
        "cli.warning.libraryDamaged": "경고: 라이브러리 파일 {file}이(가) 손상되었습니다: {ranges} 바이트에 온전한 기록이 없습니다. 저장된 기록 {lost}개를 잃었고, 온전한 기록 {recovered}개를 복구했으며, 그중 연산 {heldBack}개는 잃은 기록을 기다립니다. 다른 기기가 올렸다면 동기화가 그 기록을 되찾아 옵니다. 손상된 파일은 손대지 않고 {kept}(으)로 보관했습니다. 아무것도 삭제하지 않았습니다 (종료 상태 4)",
        "cli.warning.libraryCutShort": "경고: 라이브러리 파일 {file}이(가) 마지막으로 정상 종료했을 때보다 {missing}바이트 짧습니다: {ranges} 바이트에 저장된 편집은 잃었으며, 그 편집을 게시한 다른 기기가 있으면 동기화로 되돌아옵니다. 온전한 기록 {recovered}개를 복구했습니다. 파일은 손대지 않고 {kept}(으)로 보관했으며, 아무것도 지우지 않았습니다 (종료 상태 4)",
        "cli.warning.libraryCutShortReadOnly": "경고: 라이브러리 파일 {file}이(가) 마지막으로 정상 종료했을 때보다 {missing}바이트 짧습니다: {ranges} 바이트에 저장된 편집은 잃었으며, 그 편집을 게시한 다른 기기가 있으면 동기화로 되돌아옵니다. 온전한 기록 {recovered}개를 복구했습니다. 읽은 대로 보여 주며, 라이브러리를 바꾸는 다음 명령이 파일을 따로 보관합니다 (종료 상태 4)",
        "cli.warning.libraryFileMissing": "경고: 라이브러리 파일 {file}이(가) 없습니다. 마지막 정상 종료 때 이 파일에 편집 {missing}바이트가 저장되어 있었습니다: 그 편집은 잃었으며, 그 편집을 게시한 다른 기기가 있으면 동기화로 되돌아옵니다 (종료 상태 4)",
        "cli.warning.memoTextDamaged": "경고: 라이브러리 파일 {file}에서 메모 {id}의 텍스트를 읽을 수 없습니다: 저장된 뒤에 손상되었습니다. 메모 목록이 가진 내용(제목과 미리보기)을 보여 줍니다. 라이브러리는 그 파일을 바꾸지 않으며, 다른 메모는 온전합니다 (종료 상태 4)",
        "cli.warning.libraryDamagedReadOnly": "경고: 라이브러리 파일 {file}이(가) 손상되었습니다: {ranges} 바이트에 온전한 기록이 없습니다. 저장된 기록 {lost}개를 잃었고, 온전한 기록 {recovered}개를 복구했으며, 그중 연산 {heldBack}개는 잃은 기록을 기다립니다. 다른 기기가 올렸다면 동기화가 그 기록을 되찾아 옵니다. 읽은 그대로 보여 줍니다. 라이브러리를 바꾸는 다음 명령이 손상된 파일을 따로 보관합니다 (종료 상태 4)",
        "cli.warning.leftoverKept": "경고: {file}에 이 라이브러리에 없는 편집이 있습니다 (충돌로 중단된 압축, 또는 라이브러리의 다른 사본의 파일): 삭제하지 않고 {kept}(으)로 보관했습니다 (종료 상태 4)",
        "cli.warning.editStepNotRecorded": "경고: 편집은 저장했지만, 실행 취소 단계를 기록할 수 없었습니다({error}). 그래서 'memo undo'로 이 편집을 되돌릴 수 없습니다",
        "cli.warning.historyDamaged": "경고: 실행 취소 기록 {path}이(가) 올바른 JSON이 아닙니다: 손대지 않고 {kept}(으)로 보관하고 새 기록을 시작했습니다 (그 기록에 있던 편집은 더 이상 실행 취소나 다시 실행할 수 없습니다. 그 밖에 잃은 것은 없습니다) (종료 상태 4)",
        "cli.note.plainBlobsCollected": "{path}에서 암호화되지 않은 {count}를 삭제했습니다. 같은 내용이 이제 암호화되어 저장소에 있습니다",
        "cli.note.waitingForLibrary": "다른 memo 명령이 라이브러리 사용을 마칠 때까지 기다리는 중...",
        "cli.progress.export": "내보내는 중",
        "cli.progress.line": "{task}: {done}/{planned}, {read} 읽음, {written} 씀",
        "cli.progress.listing": "저장소 목록 읽는 중",
        "cli.progress.sync": "동기화 중",
        "cli.prompt.changedPassphrase": "저장소의 암호가 바뀌었습니다. 새 암호: ",
        "cli.prompt.newPassphrase": "저장소의 새 암호: ",
        "cli.prompt.passphrase": "저장소({path})의 암호: ",
        "cli.prompt.passphraseAgain": "같은 암호를 한 번 더 입력하세요: ",
        "cli.prompt.rememberedKeyDamaged": "저장소에 대해 기억해 둔 키가 손상되었습니다. 암호: ",
        "cli.purged": "{count}를 완전히 삭제했습니다.",
        "cli.quoted": "“{title}”",
        "cli.redone": "{id} {title}의 편집을 다시 적용했습니다.",
        "cli.restored": "{id} {title} 메모를 복원했습니다.",
        "cli.searchEmpty": "(일치하는 메모 없음)",
        "cli.status.earlier": "이전 ID:",
        "cli.status.earlierValue": "{ids}{more}(비정상 종료나 복사 이후)",
        "cli.status.lastSync": "마지막 동기화:",
        "cli.status.library": "라이브러리:",
        "cli.status.memos": "메모:",
        "cli.status.memosValue": "{active}, 휴지통에 {trashed}",
        "cli.status.never": "한 번도 안 함",
        "cli.status.noStore": "아직 없음('memo sync --store PATH'로 지정)",
        "cli.status.none": "없음",
        "cli.status.older": " 외 이전 {count}개",
        "cli.status.replica": "레플리카:",
        "cli.status.replicaValue": "{id}(라이브러리를 정상적으로 닫으면 유지되고, 비정상 종료 후나 복사본에서는 새로 만들어집니다)",
        "cli.status.store": "저장소:",
        "cli.status.unsynced": "동기화 안 된 편집:",
        "cli.status.unsyncedValue": "이 라이브러리가 아직 올리지 않은 {count}",
        "cli.store.dataKeyAdded": "{path}에 새 데이터 키를 추가했습니다({key}). 새 블롭은 이 키로 암호화되고, 이전 블롭도 계속 읽을 수 있습니다.",
        "cli.store.passphraseChanged": "{path}의 암호를 바꿨습니다. 다른 기기는 다음 동기화 때 새 암호를 묻습니다.",
        "cli.storeErrorsAbove": "{count}(위 목록 참고)",
        "cli.storeNotListed": "저장소 목록을 읽을 수 없습니다",
        "cli.suggestionSeparator": ". ",
        "cli.sync.blobs": "{read} 읽음({readBytes}), {written} 씀({writtenBytes}), {deleted} 삭제; 시작할 때 저장소에 {listed} 있었음.",
        "cli.sync.done": "저장소({store})와 동기화했습니다.",
        "cli.sync.nothingNew": "저장소에 새 내용이 없습니다.",
        "cli.sync.pending": "바탕이 되는 변경이 도착할 때까지 {count}를 보류합니다.",
        "cli.sync.published": "이 라이브러리의 {count}를 올렸습니다(동기화되지 않은 편집).",
        "cli.sync.received": "저장소에서 {count}를 받았습니다(다른 기기에서 한 편집).",
        "cli.sync.skipped": "{count}를 건너뛰었습니다(한 번만 알립니다. 바뀌었거나 전송 중에 손상되었을 수 있으면 다시 읽습니다):",
        "cli.sync.skippedAgain": "{count}를 이전처럼 건너뛰었습니다(이전 동기화에서 알렸습니다).",
        "cli.sync.skippedMore": "외 {count}개('memo sync --json'으로 모두 볼 수 있습니다).",
        "cli.sync.snapshot": "노트 전체의 스냅샷을 올렸습니다(새 기기는 여기서 시작합니다).",
        "cli.sync.storeErrors": "저장소 오류:",
        "cli.sync.unfinished": "저장소({store})와의 동기화가 끝나지 않았습니다(아래 저장소 오류 참고; 'memo sync'를 다시 실행하세요).",
        "cli.trashEmpty": "(휴지통이 비어 있음)",
        "cli.typedKeptIn": "; 입력한 내용은 {path}에 보관되어 있습니다",
        "cli.undone": "{id} {title}의 마지막 편집을 취소했습니다.",
        "cli.untitled": "(제목 없음)",
        "cli.version": "memo {version} (라이브러리 형식 {library}, 저장소 구조 {store})",
        "cli.what.deleteLength": "--delete의 길이",
        "cli.what.deleteOffset": "--delete의 위치",
        "cli.what.filePath": "파일 경로",
        "cli.what.filePathOrDash": "파일 경로(표준 입력은 -)",
        "cli.what.folderPathOrURL": "폴더 경로 또는 저장소 URL",
        "cli.what.url": "URL",
        "cli.what.regionName": "리전 이름",
        "cli.what.folderPath": "폴더 경로",
        "cli.what.daysOrForever": "일수 또는 forever",
        "cli.what.insertOffset": "--insert의 위치",
        "cli.what.offsetAndLength": "OFFSET과 LENGTH",
        "cli.what.offsetAndText": "OFFSET과 TEXT",
        "cli.what.value": "값",
        "cli.whichChange": " ({count}개 중 {index}번째 변경)",
        // MARK: help
        "help.examplesLabel": "예:",
        "help.exitDamaged": "종료 상태 4: 할 일은 했지만 라이브러리가 손상된 것을 발견했습니다(경고가\n무엇을 잃었는지 알려 줍니다).",
        "help.footer": """
            메모 ID: 다른 메모와 겹치지 않는 한 ID의 앞부분만 써도 됩니다('memo show 3fa2').
            'memo list'는 ID를 8자리 이상으로 줄여서 보여 줍니다.

            라이브러리: 메모가 저장되는 폴더입니다. --library PATH, 없으면 환경 변수
            MEMO_LIBRARY, 없으면 사용자 데이터 폴더(Linux는 $XDG_DATA_HOME/memosync 또는
            ~/.local/share/memosync, macOS는 ~/Library/Application Support/MemoSync)입니다.
            메모를 보기만 하는 명령은 기다리지 않습니다. 다른 memo 명령(편집기, 동기화)이
            실행 중이어도 동작합니다.

            모든 명령의 옵션: --library PATH; --quiet(-q): 오류와 손상 경고 외에는 표준 오류에
            아무것도 쓰지 않음; --json: 프로그램용 출력(언어와 무관, help, store, serve, demo,
            completion을 뺀 모든 명령); --help(-h). 'memo --version'은 버전을 출력합니다.

            종료 상태: 성공하면 0, 명령이 실패하면 1, 명령줄이 잘못되면 2, 암호 문구가 틀렸거나
            없거나 바뀌었으면 3, 할 일은 했지만 라이브러리가 손상된 것을 발견하면 4(경고가 무엇을
            잃었는지 알려 줍니다). 'search'는 grep처럼 일치하는 것이 없으면 1, 오류면 2입니다.
            오류는 "memo: <메시지>" 형태로 표준 오류에 나오며, 실패한 명령은 아무것도 바꾸지
            않습니다. 다만 동기화는 저장소 오류 전에 받은 것을 간직하고('memo help sync'),
            'memo store decrypt'는 어디서 멈췄고 무엇을 실행할지 오류로 알려 줍니다.

            언어: 메시지와 도움말은 LC_ALL, LC_MESSAGES, LANG을 따릅니다(영어, 한국어,
            일본어). 날짜와 숫자는 로캘 형식을 따릅니다. 'memo help 명령'에 예가 있습니다.
            """,
        "help.group.files": "내보내기와 가져오기",
        "help.group.find": "찾기",
        "help.group.more": "그 밖에",
        "help.group.sync": "동기화",
        "help.group.trash": "휴지통",
        "help.group.write": "쓰기",
        "help.page.completion": """
            bash, zsh, fish에서 memo의 명령, 옵션, 메모 ID를 자동 완성하는 스크립트를 출력합니다.
            셸의 시작 파일에서 불러오세요.

            예:
              echo 'source <(memo completion bash)' >> ~/.bashrc
              memo completion zsh > "${fpath[1]}/_memo"
              memo completion fish > ~/.config/fish/completions/memo.fish

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.delete": """
            메모를 휴지통으로 옮깁니다('memo restore ID'로 되돌릴 수 있습니다). 다른 기기에서는
            다음 동기화 때 휴지통으로 옮겨집니다. 그사이 누군가 편집하면 옮겨지지 않습니다.

            --json  옮긴 뒤 메모를 객체로 출력

            예:
              memo delete 3fa2
              memo trash

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.summary.serve": "브라우저에서 쓰는 메모 앱, 백그라운드 동기화",
        "help.page.serve": """
            이 컴퓨터의 브라우저에 메모 앱을 띄웁니다: 메모 목록과 편집기, 입력하는 대로
            찾는 검색, 휴지통, 밝은/어두운 테마, 영어·한국어·일본어. 열 주소(시작할 때마다 새로
            만드는 접근 토큰 포함)를 출력하고, 한 번만 쓸 수 있는 별도 토큰을 붙인 주소를(열기 도구의
            명령줄은 다른 사용자도 읽을 수 있으므로) $BROWSER로, 없으면 데스크톱의 열기 도구(디스플레이가 있을
            때 xdg-open, macOS에서는 open)로 엽니다. 라이브러리는 백그라운드에서
            저장소(memo sync가 기억한 저장소 또는 --store)와 동기화됩니다. 그동안 다른 memo
            명령도 같은 라이브러리에서 계속 쓸 수 있습니다. Ctrl-C로 멈춥니다.

            --port N                 127.0.0.1의 포트 (기본: 비어 있는 아무 포트)
            --listen ADDRESS[:PORT]  다른 IPv4 주소에서 받기 (토큰은 여전히 필요;
                                     닿을 수 있는 누구나 시도할 수 있음)
            --no-open                주소만 출력
            --store PATH|URL         이 저장소와 동기화 (memo sync와 같음)
            --sync-interval SECONDS  적어도 이 간격으로 동기화 (기본 30)

            예:
              memo serve
              memo serve --port 8080 --no-open

            종료 상태: 멈추면 0, 명령이 실패하면 1, 명령줄이 잘못되면 2.
            """,
        "cli.serve.address": "열 주소: {url}",
        "cli.serve.syncing": "{store}와 백그라운드에서 동기화합니다 (적어도 {seconds}초마다).",
        "cli.serve.stop": "멈추려면 Ctrl-C를 누르세요.",
        "cli.note.serveListening": "{address}에서 받는 중: 접속하려면 위 주소의 토큰이 필요합니다. 토큰은 암호화되지 않은 평문(일반 HTTP)으로 네트워크를 지나므로, 통신을 볼 수 있는 사람은 누구나 토큰을 얻어 모든 메모를 읽고 바꿀 수 있습니다",
        "cli.error.serveCannotListen": "{address}에서 받을 수 없습니다: {error}",
        "help.page.demo": """
            핵심 기능을 명령 하나로 보여 줍니다. 두 기기(DIR 안의 라이브러리 두 개)가 폴더
            하나를 저장소로 공유하고, 오프라인에서 같은 메모를 편집한 뒤 차례로 동기화하여 같은
            상태가 됩니다. 단계마다 일어난 일과 같은 일을 직접 하는 memo 명령을 보여 줍니다.

            --dir DIR  라이브러리 두 개와 공유 폴더를 둘 곳: 새 폴더, 빈 폴더, 또는 이전
                       데모가 만든 폴더(그 결과를 바꿉니다). 기본은 임시 폴더의
                       memosync-demo-UID

            예:
              memo demo
              memo demo --dir /tmp/memo-demo

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.edit": """
            옵션이 없으면 텍스트를 담은 임시 파일로 $VISUAL($EDITOR, 둘 다 없고 터미널이면 vi)을
            열고, 편집기가 정상 종료하면 쓴 내용을 저장합니다. 편집기가 열려 있는 동안
            라이브러리를 잡고 있지 않으므로 다른 명령과 동기화가 계속 동작하고, 그동안 바뀐
            내용과 편집한 내용이 합쳐집니다. 편집기가 실패하면 입력한 내용은 메시지에 나오는
            파일에 보관됩니다. 원래 텍스트가 줄바꿈으로 끝나지 않았는데 파일이 줄바꿈으로
            끝나면(대부분의 편집기가 붙입니다) 그 줄바꿈 하나는 버립니다.

            --text TEXT              텍스트 전체 바꾸기(-는 표준 입력). 다른 부분만 바뀌므로
                                     다른 곳에서 한 편집도 남습니다
            --text-file PATH         텍스트 전체를 파일 내용으로 바꾸기(표준 입력은 -)
            --insert OFFSET TEXT     OFFSET 위치에 TEXT 넣기
            --delete OFFSET LENGTH   OFFSET부터 LENGTH 글자 지우기
            --json                   편집 후 메모를 객체로 출력

            OFFSET과 LENGTH는 0부터 세는 유니코드 스칼라(코드 포인트) 수입니다. 코드 포인트
            하나로 쓴 "é"는 1, "e"와 결합 악센트는 2, 이모지는 1(국기는 2)입니다. --insert와
            --delete를 여러 개 주면 앞의 것이 적용된 텍스트에 차례로 적용됩니다. 하나라도
            텍스트와 맞지 않으면 아무것도 바뀌지 않습니다. 휴지통의 메모는 먼저 복원해야
            편집할 수 있습니다. 'memo undo ID'로 편집을 취소할 수 있습니다.

            예:
              memo edit 3fa2
              memo edit 3fa2 --text "귀리 우유 사기"
              sed 's/우유/귀리 우유/' draft.txt | memo edit 3fa2 --text -
              memo edit 3fa2 --insert 0 "할 일: " --delete 20 5

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.export": """
            메모를 일반 텍스트로 씁니다. 표준 출력(--output -도 같음)이나 FILE에 씁니다.
            FILE에 있는 파일은 통째로 바꿉니다(새 텍스트를 옆에 쓴 뒤 그 자리에 놓으므로
            실패한 내보내기는 원래 파일을 그대로 둡니다). 쓸 권한이 없는 파일은 거부합니다.
            심볼릭 링크는 따라가서 가리키는 파일을 같은 방식으로 바꿉니다. 파이프(FIFO)나
            장치(/dev/stdout, 터미널)에는 바꾸지 않고 그 안에 씁니다. --all이면 휴지통에 없는 모든 메모를 폴더 DIR(없으면 만듦)에
            메모마다 UTF-8 .txt 파일 하나로 씁니다. 파일 이름은 제목을 바탕으로 하고(흔한 파일
            시스템 모두에서 안전하고 겹치지 않게), 파일 날짜는 메모가 마지막으로 바뀐 시각이므로
            'memo import --again DIR'로 같은 메모를 되살릴 수 있습니다(--again은 텍스트가 같은 메모도 모두 살립니다. 가져오기는 어느 파일에서나
            CR LF 줄바꿈을 LF로 바꾸고 맨 앞의 바이트 순서 표시를 뺍니다). --force가 없으면 기존 파일을
            덮어쓰지 않으며, 하나라도 덮어쓰게 되면 아무것도 쓰지 않습니다. 실패한 내보내기는
            아무것도 바꾸지 않습니다. 이미 있던 파일은 내용이 그대로이고, 새 파일은 남지
            않습니다. 터미널에서 1초 넘게 걸리면 --quiet가 아닌 한 진행 상황을 보여 줍니다.

            --output FILE, -o FILE  FILE에 쓰기
            --all DIR               모든 메모를 DIR에 쓰기
            --force                 기존 파일 덮어쓰기(--all과 함께)
            --json                  --all이면 객체: directory, files(객체: id, file).
                                    메모 하나면 그 메모(또는 id와 file)

            예:
              memo export 3fa2 > groceries.txt
              memo export --all ~/memos-backup
              memo export --all ~/memos-backup --force

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.help": """
            작업별로 묶은 명령, 명령 하나의 예가 담긴 설명, 또는 --man이면 같은 내용으로 만든
            man 페이지(roff) 형식의 전체 설명서를 보여 줍니다.

            예:
              memo help
              memo help sync
              memo help --man > memo.1 && man ./memo.1

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.import": """
            텍스트나 마크다운 파일 하나마다 메모 하나를 만듭니다. PATH는 파일이거나, 안의
            .txt, .text, .md, .markdown 파일을 가져올 폴더입니다(하위 폴더 포함, 숨김 파일
            제외). 메모의 텍스트는 파일 내용입니다. UTF-8이어야 하며 BOM은 있어도 되고(제거),
            CR LF 줄바꿈은 LF로 바꿉니다. 제목은 첫 줄입니다. 파일의 날짜가 메모의 날짜(만든
            시각, 마지막으로 바뀐 시각)가 되며 날짜 순서대로 만듭니다. 라이브러리에 이미 있는
            변경보다 이른 날짜는 그 변경 바로 뒤가 되고, 미래의 날짜는 가져오는 시각이
            됩니다. 다른 인코딩(UTF-16, Latin-1 등)의 파일은 이유와 함께 거부하며, 그러면
            아무것도 가져오지 않습니다.

            텍스트가 이미 어떤 메모와 같은 파일(라이브러리나 휴지통, 또는 같은 가져오기의 다른
            파일)은 건너뛰므로 같은 파일을 두 번 가져와도 중복되지 않습니다. --again이면 그래도
            가져옵니다('memo export --all'로 라이브러리를 옮길 때처럼: 텍스트가 같은 메모도
            하나하나 돌아옵니다). 라이브러리가 없으면 새로 만듭니다.

            --again  이미 같은 텍스트의 메모가 있어도 가져오기
            --json   객체: imported(객체: file, id), skipped(파일)

            예:
              memo import notes/todo.md
              memo import ~/Documents/notes
              memo export --all backup && memo --library new-library import --again backup

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.list": """
            휴지통에 없는 메모를 최근에 바뀐 순서로 보여 줍니다. 짧은 ID, 마지막으로 바뀐
            시각(로컬 시각, 로캘 형식), 제목(첫 줄)이 나옵니다. 다른 memo 명령이 실행 중이어도
            동작합니다.

            --json  객체의 JSON 배열: id, title, preview, createdAt, modifiedAt(ISO 8601,
                    UTC), status.

            예:
              memo list
              memo list --json | jq -r '.[].title'

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.new": """
            메모를 만들고 그 ID(16진수 32자리)를 한 줄로 출력합니다.

            텍스트는 TEXT입니다(여러 단어는 공백 하나로 이어집니다). - 나 --text-file - 이면
            표준 입력, --text-file PATH이면 그 파일(UTF-8)을 읽은 그대로 씁니다. 아무것도
            없으면 표준 입력이 터미널이 아닐 때는 표준 입력을, 터미널이면 편집기($VISUAL 또는
            $EDITOR)를 빈 파일로 엽니다. 입력이나 파일이 비어 있으면 아무것도 만들지 않습니다.
            'memo new ""'는 빈 메모를 만듭니다. 대시로 시작하는 텍스트는 앞에 --를 붙이세요.
            라이브러리가 없으면 새로 만듭니다.

            --text-file PATH  PATH에서 텍스트 읽기(표준 입력은 -)
            --json            새 메모를 객체로 출력('memo show --json'과 같음)

            예:
              memo new "우유 사기"
              echo "배관공에게 전화" | memo new
              memo new --text-file notes/meeting.md
              pbpaste | memo new -

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.purge": """
            휴지통에 있는 메모를 완전히 삭제합니다. 텍스트는 이 라이브러리의 파일에서, 그리고
            다른 기기에서는 다음 동기화 때 사라집니다. 모든 ID는 휴지통에 있는 메모여야 하며,
            하나라도 아니면 아무것도 삭제하지 않습니다. --all은 휴지통을 비웁니다.

            라이브러리가 손상된 뒤 보류된 편집을 위해 보관하는 기록에 텍스트가 있는 메모는,
            동기화로 손상된 부분을 되찾을 때까지 삭제하지 않습니다(그때는 아무것도 삭제하지
            않습니다). 따로 보관한 손상 파일 사본은 바꾸지 않으며, 텍스트가 남아 있을 수
            있으므로 경고로 알립니다.

            --all   휴지통의 모든 메모
            --json  객체: purged(삭제한 ID), keptAside(알린 사본).

            예:
              memo purge 3fa2 91c0
              memo purge --all

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.redo": """
            메모에 마지막으로 한 'memo undo'가 취소한 편집을 다시 적용합니다. 메모를 새로
            편집하면 다시 적용할 수 있는 기록은 사라집니다.

            --json  적용 후 메모를 객체로 출력

            예:
              memo undo 3fa2
              memo redo 3fa2

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.restore": """
            휴지통에서 메모를 복원합니다. ID는 휴지통에 있는 메모 ID의 겹치지 않는 앞부분이면
            됩니다('memo trash'로 볼 수 있습니다).

            --json  복원 후 메모를 객체로 출력

            예:
              memo trash
              memo restore 3fa2

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.search": """
            텍스트에 QUERY가 들어 있는 메모를 최근에 바뀐 순서로 보여 줍니다. 대소문자(완전한
            대소문자 접기: "strasse"로 "Straße"를 찾습니다), 악센트, 유니코드 정규화("cafe"로
            "Café"를 찾습니다), 전각과 반각("abc"로 "ＡＢＣ"를, "ガ"로 "ｶﾞ"를 찾습니다),
            히라가나와 가타카나("かな"로 "カナ"를 찾습니다)는 구별하지 않습니다. 여러 단어는
            공백 하나로 이은 한 구절로 검색합니다. 휴지통의 메모는 검색하지 않습니다.

            --kana-distinct  히라가나와 가타카나를 구별합니다.
            --json           'memo list --json'과 같음.

            예:
              memo search 우유
              memo search "귀리 우유" --json
              memo search 우유 > /dev/null && echo "있음"

            종료 상태: 일치하는 메모가 있으면 0, 없으면 1(터미널이 아니면 아무것도 출력하지
            않음), 오류나 잘못된 명령줄이면 2(grep과 같음).
            """,
        "help.page.history": """
            메모의 버전을 최신순으로 한 줄에 하나씩 나열합니다: 버전의 짧은 이름('memo show
            --at', 'memo diff', 'memo revert'에 지정하는 값), 기기가 만든 시각, 추가한(+)
            문자 수와 삭제한(-) 문자 수, 기기. 다른 기기의 이 메모 편집이 사이에 들어오거나,
            기기가 다른 메모를 편집하다가 10분 이상 지나 이 메모로 돌아오면 버전이 끝납니다
            (사이에 다른 일이 없는 한 메모의 편집은 아무리 오래 쉬어도 하나의 버전이며, 그동안
            받은 다른 메모의 편집은 영향이 없습니다). 같은 편집을 가진 기기는
            같은 이름의 같은 버전을 나열합니다.

            --json  배열: version, cut, device, thisDevice, time, inserted, deleted.

            예:
              memo history 3fa2
              memo show 3fa2 --at 9c41e07a
              memo history --keep 30

            ID 없이 --keep DAYS(1부터 36500까지) 또는 --keep forever를 지정하면: 이전 버전을
            표시할 수 있도록 라이브러리가 삭제된 텍스트를 보관하는 기간을 정합니다(정하기 전에는
            90일, 'memo status'가 보여 줍니다). 그보다 오래된 삭제된 텍스트는 즉시, 그리고
            그 뒤로도 버립니다. 메모의 텍스트는 바뀌지 않습니다. 라이브러리(기기)마다 기간이
            따로 있습니다.

            종료 상태: 성공하면 0, 명령이 실패하면 1, 명령줄이 잘못되면 2.
            """,
        "help.page.diff": """
            메모에서 바뀐 내용을 줄 단위 unified diff로 표시합니다. 버전을 지정하지 않으면 최신
            버전과 그 이전 버전을, FROM만 지정하면 그 버전과 최신 버전을, FROM과 TO를 지정하면
            두 버전을 비교합니다. 삭제된 텍스트는 라이브러리가 보관하는 동안(보존 기간)만 표시할
            수 있습니다.

            --json  객체: id, from, to, changes(kind, text, 각 텍스트에서의 UTF-16 및 스칼라
                    범위), lines(바뀐 줄 범위).

            예:
              memo diff 3fa2
              memo diff 3fa2 9c41e07a

            종료 상태: 성공하면 0, 명령이 실패하면 1, 명령줄이 잘못되면 2.
            """,
        "help.page.revert": """
            메모 텍스트를 VERSION 시점의 상태로 되돌리는 새 편집을 합니다. 다른 부분만 삭제하거나
            다시 입력하므로 그 사이 다른 기기에서 한 편집은 동기화할 때 유지되며, 'memo undo'로
            되돌리기를 취소할 수 있습니다.

            --json  되돌린 뒤의 메모('memo show --json'과 같은 형식).

            예:
              memo revert 3fa2 9c41e07a

            종료 상태: 성공하면 0, 명령이 실패하면 1, 명령줄이 잘못되면 2.
            """,
        "help.page.show": """
            메모의 텍스트를 저장된 그대로 출력합니다(터미널에서는 텍스트가 줄바꿈으로 끝나지
            않으면 줄바꿈을 붙입니다). 휴지통의 메모도 볼 수 있습니다.

            --at VERSION  해당 버전 시점의 텍스트('memo history ID'로 목록 확인).
            --before TIME  TIME 이전에 만든 가장 최근 버전의 텍스트(2026-11-20 18:30).
            --json  객체: id, title, text, preview, createdAt, modifiedAt, status.

            예:
              memo show 3fa2
              memo show 3fa2 > memo.txt

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.store": """
            암호화된 저장소를 관리합니다('memo sync --encrypt'로 켭니다).

            passphrase   암호 바꾸기: 저장소의 키를 새 암호로 다시 감쌉니다(메모 블롭은 다시
                         쓰지 않음). 새 암호는 터미널에서 두 번 묻거나 MEMO_NEW_PASSPHRASE 또는
                         --new-passphrase-file에서 읽습니다. 다른 기기는 다음 동기화 때 새
                         암호를 묻습니다.
            rotate-key   새 데이터 키 추가: 새 블롭은 새 키로 암호화하고, 이전 블롭도 계속
                         읽을 수 있습니다. 암호는 그대로입니다.
            decrypt      이 라이브러리와 저장소의 암호화 끄기: 무엇을 하는지 알리고, 암호를
                         묻고(항상: 기억된 키로는 안 됨), 모두 받은 뒤 저장소의 키 블롭과
                         암호화된 블롭을 삭제하고 모든 메모를 평문으로 다시 올립니다. 다른
                         기기는 각 기기에서 실행할 때까지 계속 암호화합니다.

            암호화는 라이브러리의 속성입니다. 한 번 암호화해서 동기화한 라이브러리는 'memo
            store decrypt' 전까지 어떤 저장소에도 평문을 쓰지 않습니다. 키 블롭을 잃은
            저장소(지워졌거나, 키 블롭이 삭제되었거나, 새 저장소 폴더)는 다음 'memo sync'
            때 같은 암호의 라이브러리 키 블롭을 되돌려 받습니다. 라이브러리는 'store
            passphrase'나 'store rotate-key' 직후에도 최신 키 블롭을 보관합니다. 더 오래된
            키 블롭으로 되돌려진 저장소도 최신 키 블롭을 되돌려 받고(바꾼 암호는 그대로
            유지됩니다), 손상된 키 블롭은 라이브러리의 사본으로 바뀝니다.

            이 라이브러리가 저장소의 키를 기억하고 있으면(라이브러리의 store-key 파일, 본인만
            읽을 수 있음: 암호 자체가 아니라 암호에서 만든 키) 현재 암호를 묻지 않습니다.
            그렇지 않으면 --passphrase-file FILE, MEMO_PASSPHRASE, 또는 터미널에서 받습니다.

            --store PATH  저장소 폴더(기본값: 'memo sync'가 기억한 폴더)

            예:
              memo store passphrase
              memo store rotate-key --store ~/Dropbox/memos
              memo store decrypt

            종료 상태: 끝나면 0, 저장소를 쓸 수 없으면 1, 잘못된 명령줄이면 2, 암호가
            틀렸거나 없으면 3(아무것도 바꾸지 않음).
            """,
        "help.page.status": """
            라이브러리 폴더, 마지막 세션의 레플리카 ID(라이브러리를 정상적으로 닫았고 복사본이
            아니면 다음 세션이 이어받음)와 아직 그 ID로 올리는 이전 ID들, 메모 수, 아직 저장소에
            올리지 않은 작업 수(동기화 안 된 편집, 'memo sync'와 같은 방식으로 셈), 마지막으로
            동기화를 마친 시각, 기억된 저장소 폴더, 암호화 여부(라이브러리와, 따라서 그 저장소)를 보여 줍니다. 손상이 있었다면
            보류된 작업(손상된 파일이 잃은 작업을 동기화가 되찾아 올 때까지 기다림)과 라이브러리 폴더에
            따로 둔 파일도 보여 줍니다. 다른 memo 명령이 실행 중이어도 동작합니다.

            --json  객체: library, replica, lineage(이 라이브러리가 편집에 쓴 최신 ID 8개),
                    lineageCount, memos, trashedMemos, unsyncedEdits(unpublishedOperations
                    로도), lastSync(ISO 8601 또는 null), store(또는 null), encrypted(라이브러리가
                    암호화해서만 동기화함), storeEncrypted(마지막 동기화 때의 저장소, 그 전에는
                    null), passphraseRemembered, historyKeepDays(null: 영구), heldBackOperations,
                    keptAside(파일 이름).

            예:
              memo status
              memo status --json | jq .unsyncedEdits

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.recover": """
            보류된 편집의 텍스트를 보여 줍니다. 보류된 편집이란 이 라이브러리에 저장되었지만,
            손상된 파일이 잃은(또는 아직 동기화로 받지 못한) 작업을 기반으로 하기 때문에 기다리는
            작업입니다. 라이브러리의 작업은 만든 순서대로 적용되므로, 한 번도 동기화하지 않은 기록을
            손상이 가져가면 그 뒤에 저장한 모든 것이 모든 메모에서, 잃은 작업을 가진 기기로부터
            동기화가 되찾아 올 때까지 기다립니다. 그런 기기가 없으면 영영 적용되지 않으니, 여기서
            텍스트를 복사하세요. 작업이 바꾸는 메모마다 ID, 기다리는 작업 수, 제목(또는 메모가 이
            라이브러리에 없다는 것), 그리고 그 작업들이 넣고 지우지 않은 글자를 입력한 순서대로
            보여 줍니다(다른 위치에 넣은 글자는 새 줄에서 시작). --restore 없이는 아무것도 바꾸지
            않으며(기다리는 작업이 도착하면 보류된 작업은 저절로 적용됩니다), 다른 memo 명령이
            실행 중이어도 동작합니다.

            --restore  대신 텍스트를 메모로 되살립니다. 보류된 작업이 텍스트를 입력한 메모마다
                       새 메모 하나(이 라이브러리에 있는 메모라면 첫 줄이 그 제목에서
                       "되살린 편집")를 만들며, 다른 메모처럼 동기화됩니다. 어떤 메모가 이미
                       똑같이 가진 텍스트(전에 되살린 것)는 다시 만들지 않습니다. 보류된 작업은
                       계속 기다리며, 기다리는 작업이 도착하면 적용되고 되살린 메모는 그 옆에
                       남습니다.
            --json     객체: heldBackOperations, memos(각각 id, operations, title 또는 null,
                       text). --restore와 함께면 restored(각각 heldBackMemo, memo, created).

            예:
              memo recover
              memo recover > recovered.txt
              memo recover --restore

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.sync": """
            저장소와 변경 내용을 주고받습니다. 저장소는 기기끼리 공유하는 폴더입니다(Dropbox,
            iCloud Drive, Syncthing 폴더, 네트워크 공유, USB 메모리). 각 기기는 자기 파일만
            그곳에 쓰고, 동기화할 때마다 다른 기기가 쓴 것을 읽고 이 라이브러리의 새 편집을
            올립니다. --store PATH로 폴더를 지정하면(없으면 만듭니다) 라이브러리에 기억되므로
            이후에는 옵션이 필요 없습니다. 메모를 편집기로 열어 둔 동안('memo edit')에도 동기화할
            수 있습니다.

            저장소는 S3 호환 버킷(--store s3://BUCKET/PREFIX, AWS 이외의 서비스는 --endpoint
            URL, 그리고 --region)이나 WebDAV 폴더(--store https://HOST/PATH 또는
            webdav://HOST/PATH)일 수도 있습니다. 자격 증명은 AWS_ACCESS_KEY_ID,
            AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN(없으면 라이브러리의 store-credentials
            파일의 [s3] 섹션, 그것도 없으면 AWS 공유 자격 증명 파일
            AWS_SHARED_CREDENTIALS_FILE 또는 ~/.aws/credentials의 프로필 AWS_PROFILE 또는
            default)에서 가져옵니다. 리전은 --region, 없으면 AWS_REGION 또는
            AWS_DEFAULT_REGION, 없으면 us-east-1이고, 엔드포인트는 --endpoint, 없으면
            AWS_ENDPOINT_URL_S3 또는 AWS_ENDPOINT_URL, 없으면 AWS입니다. WebDAV는
            MEMOSYNC_WEBDAV_USER와 MEMOSYNC_WEBDAV_PASSWORD(없으면 [webdav] 섹션)에서
            가져옵니다. 자격 증명은 출력하거나 기억하거나 URL에 넣지 않습니다.

            결과를 출력합니다: 읽고 쓴 블롭, 받고 올린 작업, 건너뛴 블롭과 그 이유(아직 복사
            중인 파일, 손상된 파일, 더 새로운 MemoSync가 쓴 파일, 어떤 블롭보다도 큰 파일, 읽을
            수 없는 폴더, 따라가지 않는 심볼릭 링크나 특수 파일). 잠시 실패한 블롭(읽기 오류,
            아직 복사 중인 파일)은 다음 동기화 때 다시 시도하고, 완전히 나쁜 것으로 판명된
            블롭(같은 나쁜 바이트를 두 번 읽었거나, 아예 MemoSync 블롭이 아닌 파일이거나,
            목록에서 거부된 것)은 저장소 목록에서
            바뀌기 전까지 다시 읽지 않고 기억한 블롭으로 셉니다. 터미널에서 1초 넘게 걸리는 동기화는 --quiet가 아니면 진행 상황
            (저장소 작업, 읽고 쓴 바이트)을 표준 오류에 보여 줍니다.

            작업은 글자 하나를 입력하거나 지운 것, 또는 메모 하나를 만들거나 휴지통으로
            옮기거나 복원하거나 완전히 삭제한 것입니다. "작업 N개를 올렸습니다"는 저장소에
            없던 이 라이브러리의 작업 수이며('memo status'의 동기화 안 된 편집), 다른 기기가
            동기화하면 받은 작업으로 보고됩니다.

            --store PATH  저장소 폴더(기억됨)
            --json  보고서 필드를 담은 객체: complete(동기화가 모두 끝났으면 true),
                    listedStore, blobsListed, blobsRead, bytesRead, blobsWritten,
                    bytesWritten, blobsDeleted, operationsApplied(받은 작업),
                    publishedOperations, pendingOperationCount, publishedSegment(마지막),
                    publishedSegments, publishedSnapshot, skipped(객체: key, kind, reason;
                    처음 알리는 블롭), skippedAgain(이전 동기화에서 알린 블롭),
                    blobsRemembered(그중 읽지도 않은 블롭: 영구히 손상됨),
                    errors(한 줄씩), problems(같은 오류를 객체로: operation, key, error,
                    reason), store, replica(이 세션의 ID), encrypted(저장소의 암호화를 거침),
                    plainBlobsIgnored(암호화된 저장소의 평문 블롭: 적용하지 않음). 동기화가
                    실패해도 출력합니다.

            --encrypt  저장소에 종단 간 암호화를 켭니다(처음에는 새 암호를 터미널에서 화면에
                    표시하지 않고 두 번 묻거나, MEMO_PASSPHRASE 또는 --passphrase-file FILE에서
                    읽습니다). 그 뒤로 저장소에는 암호문만 남고, 모든 기기는 한 번 암호가
                    필요합니다. 암호에서 만든 키는 라이브러리(store-key 파일)에 기억됩니다.
                    그 뒤로 라이브러리는 암호화된 상태입니다. 다시는 평문으로 동기화하지 않고,
                    키 블롭이 없는 저장소(지워졌거나 새 저장소)에는 키 블롭을 되돌려 놓습니다.
                    'memo help store'를 보세요.
            --passphrase-file FILE  FILE의 첫 줄을 암호로 사용(이것이나 MEMO_PASSPHRASE를 주면 키가
                    기억되어 있어도 그 암호로 저장소가 열려야 함)

            예:
              memo sync --store ~/Dropbox/memos
              memo sync
              memo sync --json | jq .operationsApplied

            종료 상태: 동기화가 끝나면 0, 저장소를 쓸 수 없으면 1입니다. 저장소 목록을 읽지 못한
            동기화는 오류만 출력하고, 나중에 저장소 오류(쓰기 실패 등)를 만난 동기화는 요약과
            오류를 출력하며, 오류 전에 받은 것은 간직합니다. 어느 쪽이든 마지막 동기화
            시각('memo status')은 바뀌지 않습니다.
            잘못된 명령줄이면 2. 암호화된 저장소의 암호가 틀렸거나 없거나 다른 기기에서
            바뀌었으면 3이며, 이때는 아무것도 읽거나 쓰지 않습니다.
            """,
        "help.page.trash": """
            휴지통에 있는 메모를 'memo list'처럼 최근에 바뀐 순서로 보여 줍니다.

            --json  'memo list --json'과 같음.

            예:
              memo trash
              memo purge --all

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.page.undo": """
            이 기기에서 memo로 한 메모의 마지막 편집('memo edit' 또는 'memo redo')을 현재
            텍스트에 대한 변경으로 취소합니다. 그 뒤에 이 기기나 다른 기기에서 한 편집은
            남습니다. 메모마다 최근 편집 20개를 기억합니다. 휴지통으로 옮긴 것을 되돌리려면
            'memo restore'를 쓰세요.

            --json  취소 후 메모를 객체로 출력

            예:
              memo edit 3fa2 --text "앗"
              memo undo 3fa2

            종료 상태: 성공 0, 실패 1, 잘못된 명령줄 2.
            """,
        "help.summary.completion": "bash, zsh, fish용 자동 완성 스크립트",
        "help.summary.delete": "메모를 휴지통으로 옮기기",
        "help.summary.demo": "두 기기가 공유 폴더로 같은 상태가 되는 과정을 단계별로 보기",
        "help.summary.edit": "편집기로 메모 고치기, 또는 텍스트를 바꾸거나 일부 수정",
        "help.summary.export": "메모 하나 또는 전부를 텍스트 파일로 내보내기",
        "help.summary.help": "이 도움말, 명령별 도움말, man 페이지(--man)",
        "help.summary.import": "텍스트·마크다운 파일이나 폴더에서 메모 만들기",
        "help.summary.list": "메모 목록(최근에 바뀐 순)",
        "help.summary.new": "메모 만들기(인수, 파일, 표준 입력 또는 편집기로 텍스트 입력)",
        "help.summary.purge": "휴지통의 메모를 완전히 삭제하거나 휴지통 비우기",
        "help.summary.redo": "'memo undo'로 취소한 편집 다시 적용",
        "help.summary.restore": "휴지통에서 메모 복원",
        "help.summary.search": "QUERY가 들어 있는 메모(대소문자, 악센트, 전각/반각, 가나 무시)",
        "help.summary.show": "메모 텍스트를 그대로 출력",
        "help.summary.history": "메모의 버전 목록 (최신순)",
        "help.summary.diff": "메모의 두 버전 사이에 바뀐 내용 표시",
        "help.summary.revert": "메모 텍스트를 어떤 버전의 상태로 되돌리기",
        "help.summary.store": "암호화된 저장소의 암호를 바꾸거나 데이터 키 추가",
        "help.summary.status": "이 라이브러리의 레플리카 ID, 동기화 안 된 편집, 마지막 동기화",
        "help.summary.recover": "손상 뒤 보류된 편집의 텍스트(복사하거나 메모로 되살리기)",
        "help.summary.sync": "저장소 폴더와 변경 내용 주고받기(폴더는 기억됨)",
        "help.summary.trash": "휴지통에 있는 메모 목록",
        "help.summary.undo": "memo로 한 마지막 편집 취소",
        "help.title": "memo: 공유 폴더로 동기화하는 오프라인 우선 메모",
        "help.usageLabel": "사용법:",
        "skip.incomplete": "불완전함(아직 쓰거나 내려받는 중)",
        "skip.corrupt": "손상됨",
        "skip.unknownVersion": "알 수 없는 버전(종류 {kind}, 버전 {version}, 더 새로운 MemoSync가 쓴 것)",
        "skip.notMemoSync": "MemoSync 블롭이 아님",
        "skip.unreadable": "읽을 수 없음",
        "skip.tooLarge": "너무 큼({size}바이트, MemoSync 블롭은 {limit}바이트를 넘지 않음)",
        "skip.notListed": "목록에서 빠짐 - {problem}",
        "skip.problem.unreadable": "읽을 수 없음",
        "skip.problem.symbolicLink": "심볼릭 링크(따라가지 않음)",
        "skip.problem.specialFile": "일반 파일이나 폴더가 아님(FIFO, 소켓, 장치)",
        "skip.problem.tooDeep": "{levels}단계보다 깊은 폴더(살펴보지 않음)",
        "skip.withDetail": "{what}({detail})",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.what": "이 메모의 텍스트가 손상 후 보류된 편집을 위해 라이브러리가 보관하는 기록에도 있어서 영구 삭제하지 않았습니다",
        "error.ReplicaError.purgeWaitsForHeldBackEdits.suggestion": "동기화로 손상된 부분을 되찾은 다음 다시 영구 삭제하세요.",
        "cli.warning.keptAsideAfterPurge": "경고: 손상 후 따로 보관한 라이브러리 파일 사본에 영구 삭제한 텍스트가 아직 남아 있을 수 있습니다: {files}. MemoSync는 이 사본을 읽거나 지우지 않습니다(손상으로 잃은 것을 되찾기 위한 것입니다). 더 필요 없으면 직접 지우세요",
    ]
}
