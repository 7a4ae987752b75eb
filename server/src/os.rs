//! What the server and its benchmarks ask of the operating system.

/// Raises the soft limit on open files to the hard one, so the connection cap, not the
/// descriptor limit, is what binds. Returns the soft limit in force afterwards.
#[allow(clippy::unnecessary_cast)] // rlim_t is u64 on Linux, not everywhere
pub fn raise_fd_limit() -> u64 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 0;
        }
        // Linux refuses "unlimited" for open files; 2^20 is its usual ceiling.
        let hard = if lim.rlim_max == libc::RLIM_INFINITY { 1 << 20 } else { lim.rlim_max };
        if lim.rlim_cur < hard {
            let want = libc::rlimit { rlim_cur: hard, rlim_max: lim.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                return hard as u64;
            }
        }
        lim.rlim_cur as u64
    }
}
