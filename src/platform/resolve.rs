//! Host-name resolution without the C library, for the static glibc build: IP literals,
//! then `/etc/hosts`, then DNS over UDP to the nameservers in `/etc/resolv.conf`. Other
//! builds hand the lookup to the operating system (see [`OWN_RESOLVER`]).
//!
//! Why not `getaddrinfo`: in the fully static Linux binary, glibc's resolver depends on NSS
//! modules loaded at run time from the host's own glibc (which may be another version or
//! missing), and linking it in costs about 140 KB. What zcp needs is small: the addresses
//! of one API host. Search domains and TCP fallback are not implemented; names are looked
//! up as given, and a truncated answer is used for the records it carries.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// How long one nameserver gets before the next is asked (glibc's default is 5 s).
const PER_SERVER: Duration = Duration::from_secs(3);
/// DNS record types.
const TYPE_A: u16 = 1;
const TYPE_AAAA: u16 = 28;

/// The resolver ureq uses for every request zcp makes.
#[derive(Debug, Default)]
pub struct HostResolver;

/// Whether this build resolves names itself: only the fully static glibc build, where the
/// C library's resolver would need the host's NSS modules. Every other build (dynamic
/// Linux, musl, macOS, Windows) asks the operating system, which knows search domains,
/// VPN split DNS and the platform's own resolver configuration.
const OWN_RESOLVER: bool = cfg!(all(
    target_os = "linux",
    target_env = "gnu",
    target_feature = "crt-static"
));

impl Resolver for HostResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        if !OWN_RESOLVER {
            return ureq::unversioned::resolver::DefaultResolver::default()
                .resolve(uri, config, timeout);
        }
        let host = uri.host().ok_or(ureq::Error::HostNotFound)?;
        let port = uri
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("http") {
                80
            } else {
                443
            });
        let budget = if timeout.after.is_not_happening() {
            None
        } else {
            Some(*timeout.after)
        };
        let ips = lookup(host, &System, budget).map_err(|_| ureq::Error::HostNotFound)?;
        let mut out = self.empty();
        let family = config.ip_family();
        let wanted = family.keep_wanted(ips.into_iter().map(|ip| SocketAddr::new(ip, port)));
        for addr in wanted.take(16) {
            out.push(addr);
        }
        if out.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(out)
    }
}

/// Why a name did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// The name is not in /etc/hosts and no nameserver knows it.
    NotFound,
    /// No nameserver answered in time.
    NoAnswer,
}

/// Where the resolver reads its configuration (the real files, or fixed text in tests).
pub trait Sources {
    fn hosts(&self) -> String;
    fn nameservers(&self) -> Vec<SocketAddr>;
}

/// `/etc/hosts` and `/etc/resolv.conf`.
pub struct System;

impl Sources for System {
    fn hosts(&self) -> String {
        std::fs::read_to_string("/etc/hosts").unwrap_or_default()
    }

    fn nameservers(&self) -> Vec<SocketAddr> {
        let text = std::fs::read_to_string("/etc/resolv.conf").unwrap_or_default();
        let servers = nameservers(&text);
        if servers.is_empty() {
            // What the C resolver assumes when resolv.conf names none.
            vec![SocketAddr::from(([127, 0, 0, 1], 53))]
        } else {
            servers
        }
    }
}

/// Resolves `host`: an IP literal as is, then /etc/hosts, then DNS (IPv4 addresses first).
pub fn lookup(
    host: &str,
    sources: &dyn Sources,
    budget: Option<Duration>,
) -> Result<Vec<IpAddr>, ResolveError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![ip]);
    }
    let name = host.trim_end_matches('.').to_ascii_lowercase();
    let from_hosts = hosts_lookup(&sources.hosts(), &name);
    if !from_hosts.is_empty() {
        return Ok(from_hosts);
    }
    if name == "localhost" || name.ends_with(".localhost") {
        return Ok(vec![
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(Ipv6Addr::LOCALHOST),
        ]);
    }
    let deadline = budget.map(|b| Instant::now() + b);
    let mut outcome = Err(ResolveError::NoAnswer);
    for server in sources.nameservers() {
        match query_server(&name, server, deadline) {
            Ok(ips) if !ips.is_empty() => return Ok(ips),
            Ok(_) => outcome = Err(ResolveError::NotFound),
            Err(Answer::NameError) => return Err(ResolveError::NotFound),
            Err(Answer::Nothing) => {}
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
    }
    outcome
}

/// Addresses listed for `name` (already lower case) in hosts-file text, in file order.
pub fn hosts_lookup(text: &str, name: &str) -> Vec<IpAddr> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut fields = line.split_whitespace();
        let Some(Ok(ip)) = fields.next().map(str::parse::<IpAddr>) else {
            continue;
        };
        if fields.any(|alias| alias.eq_ignore_ascii_case(name)) && !out.contains(&ip) {
            out.push(ip);
        }
    }
    out
}

/// The `nameserver` entries of resolv.conf text, on port 53.
pub fn nameservers(text: &str) -> Vec<SocketAddr> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            (fields.next() == Some("nameserver")).then_some(())?;
            // A scoped IPv6 address (`fe80::1%eth0`) keeps only the address part.
            let ip = fields.next()?.split('%').next()?.parse::<IpAddr>().ok()?;
            Some(SocketAddr::new(ip, 53))
        })
        .collect()
}

/// What one nameserver said, when it said no addresses.
enum Answer {
    /// NXDOMAIN: the name does not exist (no point asking another server).
    NameError,
    /// No usable reply (timeout, refusal, garbage).
    Nothing,
}

/// Asks one server for A and AAAA at once and waits for both replies (or the time limit).
fn query_server(
    name: &str,
    server: SocketAddr,
    deadline: Option<Instant>,
) -> Result<Vec<IpAddr>, Answer> {
    let local: SocketAddr = if server.is_ipv4() {
        SocketAddr::from(([0, 0, 0, 0], 0))
    } else {
        SocketAddr::from(([0u16; 8], 0))
    };
    let socket = UdpSocket::bind(local).map_err(|_| Answer::Nothing)?;
    socket.connect(server).map_err(|_| Answer::Nothing)?;
    let id = random_id();
    let ids = [id, id.wrapping_add(1)];
    for (qid, qtype) in ids.iter().zip([TYPE_A, TYPE_AAAA]) {
        let packet = encode_query(*qid, name, qtype).ok_or(Answer::NameError)?;
        socket.send(&packet).map_err(|_| Answer::Nothing)?;
    }
    let limit = Instant::now() + PER_SERVER;
    let limit = deadline.map_or(limit, |d| d.min(limit));
    let mut v4 = None;
    let mut v6 = None;
    let mut buf = [0u8; 1500];
    while v4.is_none() || v6.is_none() {
        let left = limit.saturating_duration_since(Instant::now());
        if left.is_zero() || socket.set_read_timeout(Some(left)).is_err() {
            break;
        }
        let Ok(n) = socket.recv(&mut buf) else { break };
        let Some(reply) = decode_reply(&buf[..n]) else {
            continue;
        };
        if reply.id == ids[0] {
            v4 = Some(reply);
        } else if reply.id == ids[1] {
            v6 = Some(reply);
        }
    }
    let replies: Vec<Reply> = [v4, v6].into_iter().flatten().collect();
    if replies.is_empty() {
        return Err(Answer::Nothing);
    }
    let ips: Vec<IpAddr> = replies.iter().flat_map(|r| r.ips.iter().copied()).collect();
    if ips.is_empty() && replies.iter().all(|r| r.rcode == 3) {
        return Err(Answer::NameError);
    }
    if ips.is_empty() && replies.iter().all(|r| r.rcode != 0) {
        return Err(Answer::Nothing);
    }
    Ok(ips)
}

fn random_id() -> u16 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    (hasher.finish() & 0xffff) as u16
}

/// A standard recursive query for one name and type; `None` for a name DNS cannot carry.
pub fn encode_query(id: u16, name: &str, qtype: u16) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(name.len() + 18);
    out.extend_from_slice(&id.to_be_bytes());
    // Flags: recursion desired. One question, no other records.
    out.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.split('.') {
        if label.is_empty() || label.len() > 63 {
            return None;
        }
        out.push(label.len() as u8);
        out.extend_from_slice(label.as_bytes());
    }
    out.push(0);
    if out.len() > 12 + 255 {
        return None;
    }
    out.extend_from_slice(&qtype.to_be_bytes());
    out.extend_from_slice(&1u16.to_be_bytes());
    Some(out)
}

/// The parts of a reply zcp uses.
#[derive(Debug, PartialEq, Eq)]
pub struct Reply {
    pub id: u16,
    pub rcode: u8,
    /// Every A and AAAA record in the answer section (a CNAME chain's targets included).
    pub ips: Vec<IpAddr>,
}

/// Parses a reply; `None` for anything that is not a well-formed response.
pub fn decode_reply(packet: &[u8]) -> Option<Reply> {
    let header = packet.get(..12)?;
    let id = u16::from_be_bytes([header[0], header[1]]);
    if header[2] & 0x80 == 0 {
        return None;
    }
    let rcode = header[3] & 0x0f;
    let questions = u16::from_be_bytes([header[4], header[5]]);
    let answers = u16::from_be_bytes([header[6], header[7]]);
    let mut at = 12;
    for _ in 0..questions {
        at = skip_name(packet, at)? + 4;
    }
    let mut ips = Vec::new();
    for _ in 0..answers {
        at = skip_name(packet, at)?;
        let fixed = packet.get(at..at + 10)?;
        let rtype = u16::from_be_bytes([fixed[0], fixed[1]]);
        let len = usize::from(u16::from_be_bytes([fixed[8], fixed[9]]));
        let data = packet.get(at + 10..at + 10 + len)?;
        match (rtype, len) {
            (TYPE_A, 4) => ips.push(IpAddr::from(<[u8; 4]>::try_from(data).ok()?)),
            (TYPE_AAAA, 16) => ips.push(IpAddr::from(<[u8; 16]>::try_from(data).ok()?)),
            _ => {}
        }
        at += 10 + len;
    }
    Some(Reply { id, rcode, ips })
}

/// The offset just past a (possibly compressed) name starting at `at`.
fn skip_name(packet: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let len = *packet.get(at)?;
        match len {
            0 => return Some(at + 1),
            l if l & 0xc0 == 0xc0 => {
                packet.get(at + 1)?;
                return Some(at + 2);
            }
            l if l & 0xc0 == 0 => at += 1 + usize::from(l),
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed {
        hosts: &'static str,
        servers: Vec<SocketAddr>,
    }
    impl Sources for Fixed {
        fn hosts(&self) -> String {
            self.hosts.to_owned()
        }
        fn nameservers(&self) -> Vec<SocketAddr> {
            self.servers.clone()
        }
    }

    fn no_dns(hosts: &'static str) -> Fixed {
        Fixed {
            hosts,
            servers: Vec::new(),
        }
    }

    #[test]
    fn literals_and_hosts_file() {
        let s = no_dns(
            "# comment\n10.1.2.3  api.example  API2 # trailing\n::1 v6only\n10.1.2.4 api.example\n",
        );
        assert_eq!(
            lookup("192.0.2.7", &s, None),
            Ok(vec!["192.0.2.7".parse().unwrap()])
        );
        assert_eq!(
            lookup("[2001:db8::1]", &s, None),
            Ok(vec!["2001:db8::1".parse().unwrap()])
        );
        assert_eq!(
            lookup("API.Example.", &s, None),
            Ok(vec![
                "10.1.2.3".parse().unwrap(),
                "10.1.2.4".parse().unwrap()
            ])
        );
        assert_eq!(
            lookup("api2", &s, None),
            Ok(vec!["10.1.2.3".parse().unwrap()])
        );
        assert_eq!(lookup("v6only", &s, None), Ok(vec!["::1".parse().unwrap()]));
        assert_eq!(
            lookup("localhost", &s, None).unwrap()[0],
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        );
        assert_eq!(lookup("missing", &s, None), Err(ResolveError::NoAnswer));
    }

    #[test]
    fn resolv_conf_nameservers() {
        let text = "search example.com\nnameserver 192.0.2.53\nnameserver fe80::1%eth0\n#nameserver 1.1.1.1\noptions ndots:2\n";
        assert_eq!(
            nameservers(text),
            vec![
                "192.0.2.53:53".parse().unwrap(),
                "[fe80::1]:53".parse().unwrap()
            ]
        );
    }

    #[test]
    fn query_encoding() {
        let q = encode_query(0xabcd, "api.zerops.io", TYPE_AAAA).unwrap();
        let mut expected = vec![0xab, 0xcd, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0];
        expected.extend_from_slice(b"\x03api\x06zerops\x02io\x00\x00\x1c\x00\x01");
        assert_eq!(q, expected);
        assert_eq!(encode_query(1, "a..b", TYPE_A), None);
        assert_eq!(encode_query(1, &"x".repeat(64), TYPE_A), None);
    }

    /// A reply to `query` with a CNAME and then the given A/AAAA records.
    fn reply_to(query: &[u8], rcode: u8, records: &[IpAddr]) -> Vec<u8> {
        let mut out = query.to_vec();
        out[2] = 0x81;
        out[3] = 0x80 | rcode;
        let answers = (records.len() + 1) as u16;
        out[6..8].copy_from_slice(&answers.to_be_bytes());
        // CNAME: name pointer to the question, type 5, class 1, ttl, then a target name.
        out.extend_from_slice(&[0xc0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 4]);
        out.extend_from_slice(b"\x01b\xc0\x10");
        for ip in records {
            let (rtype, data): (u16, Vec<u8>) = match ip {
                IpAddr::V4(v4) => (TYPE_A, v4.octets().to_vec()),
                IpAddr::V6(v6) => (TYPE_AAAA, v6.octets().to_vec()),
            };
            out.extend_from_slice(&[0xc0, 12]);
            out.extend_from_slice(&rtype.to_be_bytes());
            out.extend_from_slice(&[0, 1, 0, 0, 0, 60]);
            out.extend_from_slice(&(data.len() as u16).to_be_bytes());
            out.extend_from_slice(&data);
        }
        out
    }

    #[test]
    fn reply_decoding_follows_compression_and_skips_other_records() {
        let q = encode_query(7, "api.example", TYPE_A).unwrap();
        let ip: IpAddr = "198.51.100.9".parse().unwrap();
        let reply = decode_reply(&reply_to(&q, 0, &[ip])).unwrap();
        assert_eq!(
            reply,
            Reply {
                id: 7,
                rcode: 0,
                ips: vec![ip]
            }
        );
        assert_eq!(decode_reply(&q), None, "a query is not a reply");
        let full = reply_to(&q, 0, &[ip]);
        for cut in 12..full.len() {
            // Truncated packets never panic; a cut inside the records yields no reply.
            let _ = decode_reply(&full[..cut]);
        }
    }

    /// A nameserver on loopback that answers A with one address, AAAA with another,
    /// or NXDOMAIN for names starting with "nx".
    fn fake_server() -> SocketAddr {
        let socket = UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
        let addr = socket.local_addr().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 512];
            while let Ok((n, from)) = socket.recv_from(&mut buf) {
                let q = &buf[..n];
                let qtype = u16::from_be_bytes([q[n - 4], q[n - 3]]);
                let reply = if q[13..15] == *b"nx" {
                    reply_to(q, 3, &[])
                } else if qtype == TYPE_A {
                    reply_to(q, 0, &["203.0.113.5".parse().unwrap()])
                } else {
                    reply_to(q, 0, &["2001:db8::5".parse().unwrap()])
                };
                let _ = socket.send_to(&reply, from);
            }
        });
        addr
    }

    #[test]
    fn dns_over_loopback_gives_v4_then_v6_and_nxdomain_is_not_found() {
        let server = fake_server();
        let silent = UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
        let sources = Fixed {
            hosts: "",
            // The first server never answers; the budget moves on to the second.
            servers: vec![silent.local_addr().unwrap(), server],
        };
        let started = Instant::now();
        let ips = lookup("api.example", &sources, Some(Duration::from_secs(10))).unwrap();
        assert_eq!(
            ips,
            vec![
                "203.0.113.5".parse::<IpAddr>().unwrap(),
                "2001:db8::5".parse().unwrap()
            ]
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        let direct = Fixed {
            hosts: "",
            servers: vec![server],
        };
        assert_eq!(
            lookup("nxname.example", &direct, None),
            Err(ResolveError::NotFound)
        );
    }

    #[test]
    fn a_silent_server_is_given_up_within_the_budget() {
        let silent = UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
        let sources = Fixed {
            hosts: "",
            servers: vec![silent.local_addr().unwrap()],
        };
        let started = Instant::now();
        let result = lookup("api.example", &sources, Some(Duration::from_millis(200)));
        assert_eq!(result, Err(ResolveError::NoAnswer));
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
