import SwiftDiagnostics

/// The fix-its the Strata macros offer.
enum StrataFixIt: FixItMessage {
    case replaceLetWithVar
    case splitDeclaration
    case insertDefault(String)

    var message: String {
        switch self {
        case .replaceLetWithVar: "Replace 'let' with 'var'"
        case .splitDeclaration: "Declare each property on its own line"
        case .insertDefault(let value): "Insert default value '\(value)'"
        }
    }

    var fixItID: MessageID {
        let id: String =
            switch self {
            case .replaceLetWithVar: "replaceLetWithVar"
            case .splitDeclaration: "splitDeclaration"
            case .insertDefault: "insertDefault"
            }
        return MessageID(domain: "StrataMacros", id: id)
    }
}
