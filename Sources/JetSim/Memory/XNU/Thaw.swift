import SimKernel

// XNU: on-demand thaw (what a thawed app brings back from flash).
extension XNUMemory {
    // MARK: On-demand thaw

    // A thaw loads nothing from flash proactively: the app's pages come back as it
    // touches them, and what it does not touch stays on flash ("We do not proactively
    // load any of the dirty memory out of the swap file ... consider a suspended &
    // frozen app with 100MB of dirty memory on NAND. On resume it may only touch 20MB
    // and thus the other 80MB stays on NAND", xnu doc/vm/freezer.md:62-64). A refreeze
    // skips what is already on flash (freezer.md:70, vm_compressor_relocate).
    //
    // The model: a thaw brings back the share `thawTouchPPM` of the app's suspended
    // footprint (`thawTouchedKB`, the same share at every thaw: its whole state is on
    // flash again after a refreeze); only that share is read (its latency) and only
    // it is resident; the rest (`onFlashKB`) stays on flash for as long as the app's
    // state is (until it exits: a demotion keeps it, kern_memorystatus_freeze.c:
    // 2301-2336). In front the app holds its active footprint less that rest, and
    // grows from there as any app does; at its next suspension it keeps at most the
    // touched share (`suspendedPlainKB`), compressed to its own `packedKB` (set at the
    // thaw, the profile's again at its exit). What a refreeze writes is the dirty
    // share of that (`flashWrite`).

    /// What a thaw brings back from flash: the touched share of the suspended footprint.
    @inline(__always) func thawTouchedKB(_ core: Core, _ p: Int) -> Int64 {
        core.profiles[p].suspendedKB * Int64(params.thawTouchPPM) / 1_000_000
    }

    /// Whether the app was thawed with its state still on flash (frozen once and
    /// resumed since; `thaws` counts only those and is reset only at its exit).
    @inline(__always) func thawedWithFlashCopy(_ core: Core, _ app: Int32) -> Bool {
        let a = Int(app)
        return core.apps[a].memory.contains(.hasFlashCopy) && core.apps[a].thaws > 0
    }

    /// What of its suspended footprint an app with its state on flash leaves there
    /// once thawed (0 for any other): a thawed app's, or a frozen app's at its thaw.
    @inline(__always) func onFlashKB(_ core: Core, _ app: Int32) -> Int64 {
        guard core.apps[Int(app)].memory.contains(.hasFlashCopy) else { return 0 }
        let p = core.pi(app)
        return core.profiles[p].suspendedKB - thawTouchedKB(core, p)
    }

    /// The suspended footprint an app can hold in RAM (uncompressed): the profile's,
    /// or for a thawed app only what it touched.
    @inline(__always) func suspendedPlainKB(_ core: Core, _ app: Int32) -> Int64 {
        thawedWithFlashCopy(core, app) ? thawTouchedKB(core, core.pi(app)) : core.profiles[core.pi(app)].suspendedKB
    }
}
