import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` into the target it is applied to (the `jetsim` command):
/// `let buildCommit = "SHA"` for the checkout being built, `SHA-dirty` when tracked files
/// differ from it, `unknown` outside a git checkout (a tarball) or without git. A
/// prebuild command, so it runs at every build, offline (git reads only the local
/// repository); the file is rewritten only when the text changes, so an unchanged
/// checkout recompiles nothing. `jetsim --version` and every provenance sidecar show it.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let out = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [.prebuildCommand(
            displayName: "Recording the git commit of \(target.name)",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", Self.script, "build-commit", context.package.directoryURL.path(percentEncoded: false), out.path(percentEncoded: false)],
            outputFilesDirectory: out
        )]
    }

    /// $1 the package directory, $2 the output directory. Only a checkout whose own
    /// top level is the package counts (a tarball unpacked inside another repository
    /// would otherwise get that repository's commit).
    static let script = #"""
        pkg=$1 out=$2 commit=unknown
        if [ -e "$pkg/.git" ] && command -v git >/dev/null 2>&1; then
          head=$(git -C "$pkg" rev-parse HEAD 2>/dev/null) || head=
          case ${#head} in
            40|64)
              commit=$head
              if status=$(git -C "$pkg" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null); then
                [ -z "$status" ] || commit=$commit-dirty
              fi ;;
          esac
        fi
        mkdir -p "$out" || exit 1
        tmp="$out/.BuildCommit.swift.$$"
        printf '// Written by Plugins/BuildCommit at build time; not in the repository.\nlet buildCommit = "%s"\n' "$commit" > "$tmp" || exit 1
        if cmp -s "$tmp" "$out/BuildCommit.swift"; then rm -f "$tmp"; else mv -f "$tmp" "$out/BuildCommit.swift"; fi
        """#
}
