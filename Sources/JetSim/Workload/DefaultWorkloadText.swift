/// The text of Workloads/default.yaml, compiled in: SwiftPM embeds the file
/// (`.embedInCode` in Package.swift, through the symlink Workload/default.yaml).
public let defaultWorkloadText = String(decoding: PackageResources.default_yaml, as: UTF8.self)
