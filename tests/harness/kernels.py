"""The kernels a run boots, and their guest images.

Three kinds, one interface (Kernel): a stage of one of our trees, built by
qemu/build-kernel; a user's configured and built kernel tree; a prebuilt
kernel (bzImage, its modules, its headers).  For every kernel the guest
modules (Kbuild: dm-rqpath, rqpath-oracle) are built against it, and its
guest image is the stage-independent base image plus a layer with the
kernel's modules and ours.

What the trees, stages and the cache are is known in one place,
qemu/lib.sh; describe() asks it.  Nothing here runs kernel code on the
host: kernels and modules only ever run inside qemu-system-x86_64.
"""

import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class HarnessError(Exception):
    """The harness could not build, boot or run something: never a pass."""


def log(msg):
    print(msg, flush=True)


# What a run had to build, for its "everything came from the cache" line.
BUILT = []


def run_tool(cmd, what, env=None):
    """Run a build tool, streaming its progress (stderr); its stdout lines.
    The tools say "built" on stderr when they did build something."""
    shown = " ".join(os.path.relpath(c, TOP) if c.startswith(TOP + "/") else c for c in cmd)
    log(f"$ {shown}")
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, **(env or {})))
    sys.stderr.write(proc.stderr)
    sys.stderr.flush()
    if proc.returncode != 0:
        raise HarnessError(f"{what} failed (exit {proc.returncode})")
    if any(w in proc.stderr for w in (" built in ", "initramfs: ", "building the guest modules")):
        BUILT.append(what)
    return proc.stdout.splitlines()


_described = None


def parse_describe(text):
    """qemu/build-kernel --describe's lines as {'cache': DIR, 'trees':
    {name: {'tarball', 'stages', 'mutants'}}}.  A tree's mutants (stage
    mutant:NAME, patches/mutants/TREE/NAME.patch) come on their own line,
    mutants=TREE NAME..., which may be missing (none) or come first;
    lines of keys it does not know are left alone."""
    d = {"trees": {}}
    mutants = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == "cache":
            d["cache"] = value
        elif key == "tree":
            name, tarball, *stages = value.split()
            d["trees"][name] = {"tarball": tarball, "stages": stages}
        elif key == "mutants" and value.split():
            name, *names = value.split()
            mutants[name] = names
    for name, t in d["trees"].items():
        t["mutants"] = mutants.get(name, [])
    return d


def describe():
    """{'cache': DIR, 'trees': {name: {'tarball', 'stages', 'mutants'}}}
    from qemu/lib.sh."""
    global _described
    if _described is None:
        out = subprocess.run([os.path.join(TOP, "qemu/build-kernel"), "--describe"],
                             stdout=subprocess.PIPE, text=True)
        if out.returncode != 0:
            raise HarnessError("qemu/build-kernel --describe failed")
        _described = parse_describe(out.stdout)
    return _described


MUTANT_PREFIX = "mutant:"


def mutant_stage(name):
    """The stage name of mutant NAME: stock plus its patch."""
    return MUTANT_PREFIX + name


def is_mutant_stage(stage):
    return stage.startswith(MUTANT_PREFIX)


def cache_dir():
    return describe()["cache"]


def touch(path):
    """Mark a cache entry as used, so prune_cache keeps it."""
    try:
        os.utime(path)
    except FileNotFoundError:
        pass


def prune_cache(keep_minutes=12 * 60):
    """Drop guest images, stage builds and build directories that no run
    has touched for a while: every change to a scenario or a patch makes
    new ones, and each image is ~100 MiB.  Recent ones stay, so runs in
    progress (other checkouts share the cache) keep theirs."""
    cutoff = time.time() - keep_minutes * 60
    for sub in ("initramfs", "stages", "obj"):
        d = os.path.join(cache_dir(), sub)
        if not os.path.isdir(d):
            continue
        for entry in os.listdir(d):
            path = os.path.join(d, entry)
            try:
                if os.stat(path).st_mtime < cutoff:
                    if os.path.isdir(path):
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        os.remove(path)
            except FileNotFoundError:
                pass


def base_image():
    out = run_tool([os.path.join(TOP, "qemu/build-initramfs")], "building the guest image")
    touch(out[-1])
    return out[-1]


def _tool_output(lines, keys, what):
    kv = dict(line.split("=", 1) for line in lines if "=" in line)
    missing = [k for k in keys if k not in kv]
    if missing:
        raise HarnessError(f"{what} did not print {', '.join(missing)}")
    return kv


def kernel_release(modules_dir):
    """The one VERSION under MODULES/lib/modules."""
    versions = os.listdir(os.path.join(modules_dir, "lib/modules"))
    if len(versions) != 1:
        raise HarnessError(f"{modules_dir}/lib/modules holds {versions}, not one kernel version")
    return versions[0]


class Kernel:
    """A bootable kernel with its modules and ours.

    tree     "6.1", "6.12" (our trees) or "custom"
    stage    the stage name, or the name given to a custom kernel; the
             scenarios' expected verdicts are looked up by it, and a
             custom kernel gets every scenario's default
    variant  "normal" or "debug"
    """

    def __init__(self, tree, stage, variant, bzimage, modules, guest_modules, config=None):
        self.tree = tree
        self.stage = stage
        self.variant = variant
        self.bzimage = bzimage
        self.modules = modules
        self.guest_modules = guest_modules
        self.config = config
        self.release = kernel_release(modules)
        self.initramfs = None

    @property
    def label(self):
        """How the matrix names it: tree/stage[+debug]."""
        return f"{self.tree}/{self.stage}" + ("+debug" if self.variant == "debug" else "")

    @property
    def ours(self):
        return self.tree != "custom"

    def build_image(self, base_cpio, layers=()):
        """Base image + this kernel's modules and the guest modules (+ any
        extra layers, later archives overriding earlier files), one cpio."""
        h = hashlib.sha256((base_cpio + self.modules + " ".join(layers)).encode())
        for ko in sorted(os.listdir(self.guest_modules)):
            if ko.endswith(".ko"):
                with open(os.path.join(self.guest_modules, ko), "rb") as f:
                    h.update(ko.encode() + f.read())
        key = h.hexdigest()[:16]
        # A stage name may hold a colon (mutant:NAME): not in a file name.
        stage = self.stage.replace(":", "-")
        out = os.path.join(cache_dir(), "initramfs", f"{self.tree}-{stage}-{self.variant}-{key}.cpio")
        if not os.path.exists(out):
            BUILT.append(f"the guest image of {self.label}")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            with tempfile.TemporaryDirectory() as tmp:
                root = os.path.join(tmp, "root")
                shutil.copytree(self.modules, root, symlinks=True)
                moddir = os.path.join(root, "lib/modules", self.release)
                for link in ("build", "source"):
                    if os.path.islink(os.path.join(moddir, link)):
                        os.remove(os.path.join(moddir, link))
                extra = os.path.join(moddir, "extra")
                os.makedirs(extra, exist_ok=True)
                for ko in os.listdir(self.guest_modules):
                    if ko.endswith(".ko"):
                        shutil.copy(os.path.join(self.guest_modules, ko), extra)
                subprocess.run(["depmod", "-b", root, self.release], check=True)
                mods = os.path.join(tmp, "modules.cpio")
                with open(mods, "wb") as f:
                    find = subprocess.Popen(["find", "."], cwd=root, stdout=subprocess.PIPE)
                    subprocess.run(["cpio", "-o", "-H", "newc", "-R", "0:0", "--quiet"],
                                   cwd=root, stdin=find.stdout, stdout=f, check=True)
                    find.wait()
                # The kernel unpacks concatenated newc archives in order.
                tmp_out = f"{out}.tmp.{os.getpid()}"
                with open(tmp_out, "wb") as f:
                    for part in (base_cpio, mods, *layers):
                        with open(part, "rb") as p:
                            shutil.copyfileobj(p, f, 1 << 20)
                os.rename(tmp_out, out)
        touch(out)
        self.initramfs = out


def stage_kernel(tree, stage, variant="normal"):
    """Build (or find in the cache) one stage of one of our trees."""
    cmd = [os.path.join(TOP, "qemu/build-kernel"), "--tree", tree]
    if variant == "debug":
        cmd.append("--debug")
    out = run_tool(cmd + [stage], f"building stage {stage} of tree {tree}"
                   + (" (debug)" if variant == "debug" else ""))
    kv = _tool_output(out, ("bzImage", "modules", "modules.d"), "qemu/build-kernel")
    touch(os.path.dirname(kv["bzImage"]))
    return Kernel(tree, stage, variant, kv["bzImage"], kv["modules"], kv["modules.d"],
                  config=os.path.join(os.path.dirname(kv["bzImage"]), "config"))


# --- kernels we did not build ----------------------------------------------------

def _kernelrelease_of_tree(tree):
    rel = os.path.join(tree, "include/config/kernel.release")
    if not os.path.exists(rel):
        raise HarnessError(f"{tree} is not a built kernel tree (no include/config/kernel.release): "
                           "configure it and run make first")
    with open(rel) as f:
        return f.read().strip()


# Options a kernel may have as modules (=m, as a distribution kernel does)
# instead of built in, and the module whose loading in the guest brings each
# in: RQ_BOOT_DRIVERS in tests/guest/lib.sh or a scenario's modprobe
# (tests/host/cli_test.py checks that something loads each).  None: no
# device of the guest's machine (q35) needs it.
FLEXIBLE_OPTIONS = {
    "CONFIG_SCSI_DEBUG": "scsi_debug", "CONFIG_DM_MULTIPATH": "dm_multipath",
    "CONFIG_BLK_DEV_DM": "dm_mod", "CONFIG_SCSI_VIRTIO": "virtio_scsi",
    "CONFIG_BLK_DEV_SD": "sd_mod", "CONFIG_SCSI": "sd_mod", "CONFIG_CHR_DEV_SG": "sg",
    "CONFIG_SATA_AHCI": "ahci", "CONFIG_ATA": "ahci", "CONFIG_EXT4_FS": "ext4",
    "CONFIG_VIRTIO_PCI": "virtio_pci", "CONFIG_BLK_DEV_LOOP": "loop",
    "CONFIG_ATA_PIIX": None,
}


def config_problems(config_path, fragment=None):
    """Lines of qemu/rqpath.config that a kernel's .config does not satisfy,
    as 'CONFIG_X=y (have: ...)'.  A module (=m) satisfies =y for options a
    scenario loads with modprobe, and is reported otherwise."""
    fragment = fragment or os.path.join(TOP, "qemu/rqpath.config")
    have = {}
    opener = gzip.open if config_path.endswith(".gz") else open
    with opener(config_path, "rt") as f:
        for line in f:
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                have[m.group(1)] = m.group(2)
    # How we build our own kernels, not what a scenario needs.
    ignored = {"CONFIG_LOCALVERSION", "CONFIG_LOCALVERSION_AUTO", "CONFIG_NR_CPUS",
               "CONFIG_DEBUG_INFO_NONE", "CONFIG_DEFAULT_HUNG_TASK_TIMEOUT", "CONFIG_LOG_BUF_SHIFT",
               "CONFIG_IKCONFIG", "CONFIG_IKCONFIG_PROC", "CONFIG_DEBUG_ATOMIC_SLEEP",
               "CONFIG_DEBUG_LIST", "CONFIG_SOFTLOCKUP_DETECTOR", "CONFIG_DEBUG_KERNEL",
               "CONFIG_HYPERVISOR_GUEST", "CONFIG_PARAVIRT", "CONFIG_KVM_GUEST",
               "CONFIG_NO_HZ_IDLE", "CONFIG_DEVTMPFS_MOUNT"}
    problems = []
    with open(fragment) as f:
        for line in f:
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
            if not m or m.group(1) in ignored:
                continue
            sym, want = m.groups()
            got = have.get(sym)
            if got == want or (sym in FLEXIBLE_OPTIONS and got in ("y", "m")):
                continue
            problems.append(f"{sym}={want} (have: {got if got is not None else 'not set'})")
    return problems


def check_config(config_path, name):
    problems = config_problems(config_path)
    if problems:
        raise HarnessError(
            f"{name}: the kernel config lacks what the scenarios need:\n  "
            + "\n  ".join(problems)
            + "\n  merge qemu/rqpath.config into it (scripts/kconfig/merge_config.sh) and rebuild")


def build_tree(tree_dir):
    """make bzImage modules in a configured kernel tree (git bisect run)."""
    tree_dir = os.path.abspath(tree_dir)
    if not os.path.exists(os.path.join(tree_dir, ".config")):
        raise HarnessError(f"{tree_dir} has no .config: configure it first (with qemu/rqpath.config merged)")
    log(f"building {tree_dir} (make bzImage modules)")
    logfile = os.path.join(tree_dir, ".rqpath-build.log")
    with open(logfile, "w") as f:
        r = subprocess.run(["make", "-C", tree_dir, f"-j{os.cpu_count() or 1}", "bzImage", "modules"],
                           stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise HarnessError(f"the kernel in {tree_dir} does not build (log: {logfile})")


def tree_kernel(tree_dir, name=None):
    """A user's configured and built kernel tree (in-tree or O= build)."""
    tree_dir = os.path.abspath(tree_dir)
    release = _kernelrelease_of_tree(tree_dir)
    bzimage = os.path.join(tree_dir, "arch/x86/boot/bzImage")
    if not os.path.exists(bzimage):
        raise HarnessError(f"{tree_dir} has no arch/x86/boot/bzImage: run make there first")
    check_config(os.path.join(tree_dir, ".config"), tree_dir)
    key = hashlib.sha256(f"{tree_dir} {os.stat(bzimage).st_mtime_ns}".encode()).hexdigest()[:16]
    base = os.path.join(cache_dir(), "custom", key)
    modules = os.path.join(base, "modules")
    if not os.path.exists(os.path.join(base, ".modules-done")):
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        log(f"installing the modules of {tree_dir} into {modules}")
        r = subprocess.run(["make", "-C", tree_dir, f"INSTALL_MOD_PATH={modules}",
                            "INSTALL_MOD_STRIP=1", "modules_install"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise HarnessError(f"make modules_install in {tree_dir} failed:\n{r.stdout[-2000:]}")
        open(os.path.join(base, ".modules-done"), "w").close()
    guest = os.path.join(base, "guest-modules")
    run_tool([os.path.join(TOP, "qemu/build-modules"), tree_dir, guest],
             f"building the guest modules against {tree_dir}")
    return Kernel("custom", name or f"custom:{release}", "normal", bzimage, modules, guest,
                  config=os.path.join(tree_dir, ".config"))


def prebuilt_kernel(bzimage, modules_dir, headers_dir, name=None):
    """A prebuilt kernel: its bzImage (or vmlinuz), a directory holding
    lib/modules/VERSION (an unpacked linux-image package), and the matching
    headers (an unpacked linux-headers package's /usr/src/linux-headers-VERSION)."""
    for p, what in ((bzimage, "--kernel"), (modules_dir, "--modules"), (headers_dir, "--headers")):
        if not os.path.exists(p):
            raise HarnessError(f"{what} {p} does not exist")
    modules_dir = os.path.abspath(modules_dir)
    if not os.path.isdir(os.path.join(modules_dir, "lib/modules")):
        raise HarnessError(f"--modules {modules_dir} has no lib/modules/VERSION")
    release = kernel_release(modules_dir)
    config = os.path.join(headers_dir, ".config")
    if not os.path.exists(config):
        boot_config = os.path.join(modules_dir, "boot", f"config-{release}")
        config = boot_config if os.path.exists(boot_config) else None
    if config is None:
        raise HarnessError(f"no kernel config: neither {headers_dir}/.config nor "
                           f"{modules_dir}/boot/config-{release}")
    check_config(config, bzimage)
    key = hashlib.sha256(f"{os.path.abspath(headers_dir)} {release}".encode()).hexdigest()[:16]
    guest = os.path.join(cache_dir(), "custom", key, "guest-modules")
    run_tool([os.path.join(TOP, "qemu/build-modules"), headers_dir, guest],
             f"building the guest modules against {headers_dir}")
    return Kernel("custom", name or f"custom:{release}", "normal", os.path.abspath(bzimage),
                  modules_dir, guest, config=config)
