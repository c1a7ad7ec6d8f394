//! Stdio that waits instead of failing when it was inherited in non-blocking mode.
//!
//! A parent may hand zcp descriptors whose open file is non-blocking (a Node.js wrapper
//! that touched its own stdio first does, nodejs/node#42826). A read or write then fails
//! with `WouldBlock` whenever the other side is not ready, which zcp would take for the
//! end of input or a gone client. The mode belongs to the open file, shared with the
//! parent, so zcp leaves it alone: it waits for the descriptor with `poll` and retries.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// Wraps a reader or writer on a descriptor; `WouldBlock` becomes a wait.
pub struct Patient<T>(pub T);

impl<T: Read + AsFd> Read for Patient<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    wait_for(self.0.as_fd(), PollFlags::POLLIN)?;
                }
                other => return other,
            }
        }
    }
}

impl<T: Write + AsFd> Write for Patient<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => {
                    wait_for(self.0.as_fd(), PollFlags::POLLOUT)?;
                }
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Waits until `fd` reports `events` (or an error or hang-up, which the retried call
/// then reports itself).
fn wait_for(fd: BorrowedFd<'_>, events: PollFlags) -> io::Result<()> {
    let mut fds = [PollFd::new(fd, events)];
    match poll(&mut fds, PollTimeout::NONE) {
        Ok(_) | Err(Errno::EINTR) => Ok(()),
        Err(errno) => Err(io::Error::from(errno)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;
    use std::time::Duration;

    #[test]
    fn a_non_blocking_reader_waits_for_data() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 16];
        // Without the wrapper a read with nothing to read fails at once.
        let err = (&ours).read(&mut buf).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            theirs.write_all(b"late").unwrap();
            theirs
        });
        let n = Patient(&ours).read(&mut buf).unwrap();
        assert_eq!(&buf[..n], b"late");
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_non_blocking_writer_waits_for_room() {
        let (ours, mut theirs) = UnixStream::pair().unwrap();
        ours.set_nonblocking(true).unwrap();
        // Far more than the socket buffer holds: plain writes would fail part way.
        let data = vec![b'x'; 4 * 1024 * 1024];
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            theirs.read_to_end(&mut got).unwrap();
            got.len()
        });
        Patient(&ours).write_all(&data).unwrap();
        ours.shutdown(std::net::Shutdown::Write).unwrap();
        assert_eq!(reader.join().unwrap(), data.len());
    }
}
