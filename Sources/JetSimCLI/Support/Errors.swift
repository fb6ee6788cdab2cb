import Foundation

/// Input the user can fix: reported with exit code 2.
struct BadInput: Error, CustomStringConvertible {
    var description: String
}

/// A run that failed for a reason other than bad input (exit status 1).
struct RunFailure: Error, CustomStringConvertible {
    var description: String
}

