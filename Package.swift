// swift-tools-version: 6.1
import Foundation
import PackageDescription

let package = Package(
    name: "jetsim",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SimKernel", targets: ["SimKernel"]),
        .library(name: "JetSim", targets: ["JetSim"]),
        .executable(name: "jetsim", targets: ["JetSimCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The domain-free discrete-event engine: time, the future event set, the
        // driver, seeded random streams, distributions and statistics.
        .target(name: "SimKernel"),
        // The hold model, which measures the engine's future event set: used by
        // `jetsim hold` and the benchmarks, kept out of the library products.
        .target(name: "EngineHold", dependencies: ["SimKernel"]),
        // The model: apps, lifecycle, device memory, eviction policies, workloads.
        // Workload/default.yaml is a symlink to Workloads/default.yaml, compiled in as bytes.
        // -sil-inline-generics: the managers are generic over the policy and the trace, and
        // the optimiser otherwise leaves their hooks as calls (measured 2026-12-01 by
        // scripts/perf-count.sh: 745 -> 706 instructions an event on the default workload).
        // An unsafe flag: this package cannot be another package's dependency, which it is not.
        .target(name: "JetSim", dependencies: ["SimKernel", "Yams"], resources: [.embedInCode("Workload/default.yaml")],
                swiftSettings: [.unsafeFlags(["-Xllvm", "-sil-inline-generics"], .when(configuration: .release))]),
        // The `jetsim` command (the target name differs from the library's only so
        // that case-insensitive file systems keep the two modules apart).
        // BuildCommit records the git commit being built (`jetsim --version`, provenance).
        .executableTarget(
            name: "JetSimCLI",
            dependencies: ["JetSim", "EngineHold", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // A release jetsim on Linux carries the Swift runtime and Foundation in it, so
            // it runs on cluster nodes without the toolchain (scripts/slurm/README.md).
            // At link time only: SwiftPM's --static-swift-stdlib also recompiles every
            // module (a second full build, 3-4 minutes here), while the objects of an
            // ordinary build link statically as they are, given the static Foundation's
            // own libraries (the group below; the static libraries of
            // /opt/swift/usr/lib/swift_static/linux). scripts/install.sh checks with ldd
            // that no Swift library is left, and CI runs it with the toolchain hidden.
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "--start-group", "-lFoundation", "-lFoundationInternationalization",
                                            "-lFoundationEssentials", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
                                            "-l_FoundationCollections", "-lswiftSynchronization", "-Xlinker", "--end-group"],
                                           .when(platforms: [.linux], configuration: .release))],
            plugins: ["BuildCommit"]
        ),
        .plugin(name: "BuildCommit", capability: .buildTool()),
        .testTarget(name: "SimKernelTests", dependencies: ["SimKernel"]),
        .testTarget(name: "JetSimTests", dependencies: ["JetSim"]),
        // End-to-end tests: they run the built `jetsim` binary.
        .testTarget(name: "JetSimCLITests", dependencies: ["JetSim"]),
    ]
)

// The benchmark suites (Benchmarks/) and ordo-one/benchmark: only when asked for
// (`JETSIM_BENCHMARKS=1`, as scripts/bench.sh and CI's allocation gate set it), so that
// `swift test` does not build the benchmark package and its tools.
if ProcessInfo.processInfo.environment["JETSIM_BENCHMARKS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets += [
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: ["SimKernel", "EngineHold", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/EngineBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ModelBenchmarks",
            dependencies: ["JetSim", "SimKernel", "EngineHold", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/ModelBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
}
