//! What the ptrace tracer needs to know per architecture: the numbers of the system calls that
//! open files, keyed by the `AUDIT_ARCH_*` value the kernel reports for the traced process (so
//! a 32-bit program traced from a 64-bit latlab is read with its own table), and the one
//! system call that asks the kernel which system call a stopped tracee is in
//! (`PTRACE_GET_SYSCALL_INFO`, Linux 5.3+), which spares reading registers whose layout differs
//! per architecture.

/// The system calls that open a file and return its descriptor, for the architecture a
/// tracee runs as (`AUDIT_ARCH_*`), or `None` for an architecture latlab has no table for.
/// aarch64 and riscv64 (the generic table) have no `open`, only `openat` and `openat2`.
pub fn open_calls(audit_arch: u32) -> Option<&'static [u64]> {
    match audit_arch {
        AUDIT_ARCH_X86_64 => Some(&[2, 257, 437]), // open, openat, openat2
        AUDIT_ARCH_I386 => Some(&[5, 295, 437]),   // open, openat, openat2
        AUDIT_ARCH_AARCH64 => Some(&[56, 437]),    // openat, openat2
        AUDIT_ARCH_ARM => Some(&[5, 322, 437]),    // open, openat, openat2 (EABI)
        AUDIT_ARCH_RISCV64 => Some(&[56, 437]),    // openat, openat2
        _ => None,
    }
}

/// A name for an `AUDIT_ARCH_*` value, for messages.
pub fn arch_name(audit_arch: u32) -> &'static str {
    match audit_arch {
        AUDIT_ARCH_X86_64 => "x86-64",
        AUDIT_ARCH_I386 => "i386",
        AUDIT_ARCH_AARCH64 => "aarch64",
        AUDIT_ARCH_ARM => "arm",
        AUDIT_ARCH_RISCV64 => "riscv64",
        _ => "an unknown architecture",
    }
}

/// `AUDIT_ARCH_X86_64` (linux/audit.h).
pub const AUDIT_ARCH_X86_64: u32 = 0xC000_003E;
/// `AUDIT_ARCH_I386`.
pub const AUDIT_ARCH_I386: u32 = 0x4000_0003;
/// `AUDIT_ARCH_AARCH64`.
pub const AUDIT_ARCH_AARCH64: u32 = 0xC000_00B7;
/// `AUDIT_ARCH_ARM` (little-endian).
pub const AUDIT_ARCH_ARM: u32 = 0x4000_0028;
/// `AUDIT_ARCH_RISCV64`.
pub const AUDIT_ARCH_RISCV64: u32 = 0xC000_00F3;

/// Where a tracee stopped, as `PTRACE_GET_SYSCALL_INFO` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Entering system call `nr` on architecture `arch`.
    Entry { arch: u32, nr: u64 },
    /// Leaving a system call with result `rval` (negative: an error).
    Exit { rval: i64, is_error: bool },
    /// Some other stop.
    Other,
}

/// `struct ptrace_syscall_info` (linux/ptrace.h), as much of it as latlab reads. The union's
/// largest member (seccomp: nr, six args, ret_data) sets its size.
#[repr(C)]
#[derive(Default)]
struct RawInfo {
    op: u8,
    pad: [u8; 3],
    arch: u32,
    instruction_pointer: u64,
    stack_pointer: u64,
    /// entry: nr, args[6]; exit: rval (i64), is_error (u8); seccomp: nr, args[6], ret_data.
    data: [u64; 8],
}

const PTRACE_GET_SYSCALL_INFO: u32 = 0x420e;
const OP_ENTRY: u8 = 1;
const OP_EXIT: u8 = 2;

/// Ask the kernel where the stopped tracee `pid` is (after a `PTRACE_SYSCALL` stop).
pub fn syscall_stop(pid: i32) -> std::io::Result<Stop> {
    let mut info = RawInfo::default();
    // SAFETY: PTRACE_GET_SYSCALL_INFO writes at most `size` bytes into `info`, which is a
    // live, writable, properly aligned buffer of exactly that size.
    let got = unsafe {
        libc::ptrace(
            PTRACE_GET_SYSCALL_INFO as _,
            pid,
            std::mem::size_of::<RawInfo>(),
            &mut info as *mut RawInfo as *mut libc::c_void,
        )
    };
    if got < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(decode(&info))
}

fn decode(info: &RawInfo) -> Stop {
    match info.op {
        OP_ENTRY => Stop::Entry { arch: info.arch, nr: info.data[0] },
        OP_EXIT => Stop::Exit { rval: info.data[0] as i64, is_error: info.data[1] & 0xff != 0 },
        _ => Stop::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_architecture_has_openat_and_openat2_and_aarch64_has_no_open() {
        for arch in [AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64, AUDIT_ARCH_ARM, AUDIT_ARCH_RISCV64] {
            let calls = open_calls(arch).unwrap();
            assert!(calls.contains(&437), "openat2 on {}", arch_name(arch));
        }
        assert_eq!(open_calls(AUDIT_ARCH_AARCH64), Some(&[56u64, 437][..]));
        assert!(open_calls(AUDIT_ARCH_X86_64).unwrap().contains(&257));
        assert!(open_calls(AUDIT_ARCH_ARM).unwrap().contains(&322));
        assert_eq!(open_calls(0x1234), None);
    }

    /// The table of the architecture this runs on holds its C library's numbers: natively on
    /// x86-64, and on aarch64 and arm under qemu (`scripts/check-boards.sh`).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64", target_arch = "arm"))]
    #[test]
    fn this_architectures_table_holds_its_c_librarys_numbers() {
        #[cfg(target_arch = "x86_64")]
        let (arch, want) = (AUDIT_ARCH_X86_64, [libc::SYS_open, libc::SYS_openat, libc::SYS_openat2].to_vec());
        #[cfg(target_arch = "aarch64")]
        let (arch, want) = (AUDIT_ARCH_AARCH64, [libc::SYS_openat, libc::SYS_openat2].to_vec());
        #[cfg(target_arch = "arm")]
        let (arch, want) = (AUDIT_ARCH_ARM, [libc::SYS_open, libc::SYS_openat, libc::SYS_openat2].to_vec());
        let want: Vec<u64> = want.into_iter().map(|n| n as u64).collect();
        assert_eq!(open_calls(arch).unwrap(), &want[..], "{}", arch_name(arch));
    }

    #[test]
    fn the_kernels_struct_is_decoded_per_op() {
        let mut raw = RawInfo { op: OP_ENTRY, arch: AUDIT_ARCH_AARCH64, ..Default::default() };
        raw.data[0] = 56;
        assert_eq!(decode(&raw), Stop::Entry { arch: AUDIT_ARCH_AARCH64, nr: 56 });
        let mut raw = RawInfo { op: OP_EXIT, ..Default::default() };
        raw.data[0] = (-2i64) as u64;
        raw.data[1] = 1;
        assert_eq!(decode(&raw), Stop::Exit { rval: -2, is_error: true });
        raw.op = 0;
        assert_eq!(decode(&raw), Stop::Other);
        // The kernel's struct: 8 bytes of op/pad/arch, two pointers, then the union of 64 bytes.
        assert_eq!(std::mem::size_of::<RawInfo>(), 88);
    }
}
