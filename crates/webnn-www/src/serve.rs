//! A static file server for localhost. Every response carries the cross-origin isolation
//! headers (COOP `same-origin`, COEP `require-corp`), so pages get `SharedArrayBuffer` and
//! wasm threads, and `.wasm` is served as `application/wasm` for streaming compilation.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;

/// URL prefix `prefix` (like `/pkg/`) served from folder `dir`.
#[derive(Clone, Debug)]
pub struct Mount {
    pub prefix: String,
    pub dir: PathBuf,
}

impl Mount {
    pub fn new(prefix: &str, dir: impl Into<PathBuf>) -> Mount {
        Mount { prefix: prefix.to_owned(), dir: dir.into() }
    }
}

/// A running server; it stops with the process.
pub struct Server {
    pub port: u16,
}

impl Server {
    /// Serves `mounts` (longest prefix first) on 127.0.0.1:`port` (0 picks a free port).
    pub fn start(mounts: Vec<Mount>, port: u16) -> std::io::Result<Server> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let port = listener.local_addr()?.port();
        let mut mounts = mounts;
        mounts.sort_by_key(|m| std::cmp::Reverse(m.prefix.len()));
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mounts = mounts.clone();
                thread::spawn(move || {
                    let _ = handle(stream, &mounts);
                });
            }
        });
        Ok(Server { port })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "css" => "text/css; charset=utf-8",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The file a URL path names under the mounts; `..` and other escapes are refused.
fn resolve(mounts: &[Mount], url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("/");
    let m = mounts.iter().find(|m| path.starts_with(&m.prefix))?;
    let rel = Path::new(&path[m.prefix.len()..]);
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut file = m.dir.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

fn handle(mut stream: TcpStream, mounts: &[Mount]) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/").to_owned());
        let mut content_length = 0usize;
        let mut close = false;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
                break;
            }
            let h = h.to_ascii_lowercase();
            if let Some(v) = h.strip_prefix("content-length:") {
                content_length = v.trim().parse().unwrap_or(0);
            }
            close |= h.starts_with("connection:") && h.contains("close");
        }
        let mut body = vec![0; content_length];
        reader.read_exact(&mut body)?;
        let (status, kind, data) = match (method, resolve(mounts, &target)) {
            ("GET" | "HEAD", Some(file)) => match std::fs::read(&file) {
                Ok(d) => ("200 OK", mime(&file), d),
                Err(_) => ("500 Internal Server Error", "text/plain", b"cannot read the file".to_vec()),
            },
            ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", format!("{target} not found").into_bytes()),
            _ => ("405 Method Not Allowed", "text/plain", b"only GET".to_vec()),
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
             Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n\
             Cross-Origin-Resource-Policy: same-origin\r\nCache-Control: no-store\r\n\r\n",
            data.len()
        );
        stream.write_all(head.as_bytes())?;
        if method != "HEAD" {
            stream.write_all(&data)?;
        }
        if close {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_files_with_isolation_headers_and_refuses_escapes() {
        let dir = std::env::temp_dir().join(format!("webnn-www-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/a.wasm"), b"\0asm").unwrap();
        let server = Server::start(vec![Mount::new("/x/", &dir)], 0).unwrap();
        let get = |path: &str| {
            let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
            write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
            let mut out = String::new();
            let _ = s.read_to_string(&mut out);
            out
        };
        let ok = get("/x/sub/a.wasm");
        assert!(ok.starts_with("HTTP/1.1 200"), "{ok}");
        assert!(ok.contains("Content-Type: application/wasm"));
        assert!(ok.contains("Cross-Origin-Embedder-Policy: require-corp"));
        assert!(get("/x/../Cargo.toml").starts_with("HTTP/1.1 404"));
        assert!(get("/y/sub/a.wasm").starts_with("HTTP/1.1 404"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
