import Foundation

/// Input the user can fix: reported with exit code 2.
struct BadInput: Error, CustomStringConvertible {
    var description: String
}

/// A run that failed for a reason other than bad input (exit status 1).
struct RunFailure: Error, CustomStringConvertible {
    var description: String
}

/// Reads an input file as UTF-8; a missing or unreadable file is bad input.
func readInput(_ path: String) throws -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            throw BadInput(description: "\(path): cannot read it\(isDir.boolValue ? " (it is a directory)" : "")")
        }
        throw BadInput(description: "\(path): no such file")
    }
    guard let text = String(data: data, encoding: .utf8) else {
        throw BadInput(description: "\(path): not UTF-8 text")
    }
    return text
}
