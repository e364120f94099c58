import SwiftDiagnostics

/// The fix-its the Strata macros offer.
enum StrataFixIt: FixItMessage {
    case replaceLetWithVar
    case splitDeclaration
    case insertDefault(String)
    case removeAttribute(String)
    case insertAttribute(String)
    case replaceType(String, with: String)

    var message: String {
        switch self {
        case .replaceLetWithVar: "Replace 'let' with 'var'"
        case .splitDeclaration: "Declare each property on its own line"
        case .insertDefault(let value): "Insert default value '\(value)'"
        case .removeAttribute(let name): "Remove '@\(name)'"
        case .insertAttribute(let name): "Insert '@\(name)'"
        case .replaceType(let type, let replacement): "Replace '\(type)' with '\(replacement)'"
        }
    }

    var fixItID: MessageID {
        let id: String =
            switch self {
            case .replaceLetWithVar: "replaceLetWithVar"
            case .splitDeclaration: "splitDeclaration"
            case .insertDefault: "insertDefault"
            case .removeAttribute: "removeAttribute"
            case .insertAttribute: "insertAttribute"
            case .replaceType: "replaceType"
            }
        return MessageID(domain: "StrataMacros", id: id)
    }
}
