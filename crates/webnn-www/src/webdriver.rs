//! A WebDriver client for two browsers, headless: Debian's Chromium through ChromeDriver
//! (the default), with WebGPU enabled (SwiftShader where there is no GPU) and the flags that
//! keep it off the network; and Debian's Firefox ESR through geckodriver
//! (`WEBNN_BROWSER=firefox`), the largest browser without WebNN.

use serde_json::{json, Value};
use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Chromium's flags: headless with WebGPU, nothing that reaches out to the network.
pub const CHROMIUM_ARGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
    // Memory tests ask for a garbage collection (globalThis.gc) before they measure.
    "--js-flags=--expose-gc",
];

/// Firefox's preferences: nothing that reaches out to the network, and WebGPU where Firefox
/// has it (headless without a GPU it finds no adapter). Content gets no `gc()`: the memory
/// tests then measure without forcing a collection.
fn firefox_prefs() -> Value {
    json!({
        "app.update.enabled": false,
        "browser.shell.checkDefaultBrowser": false,
        "datareporting.policy.dataSubmissionEnabled": false,
        "toolkit.telemetry.enabled": false,
        "network.captive-portal-service.enabled": false,
        "dom.webgpu.enabled": true,
    })
}

/// The browser a [`Browser`] drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Chromium,
    Firefox,
}

impl Engine {
    /// `WEBNN_BROWSER` (`chromium`, the default, or `firefox`).
    pub fn from_env() -> Result<Engine, String> {
        match std::env::var("WEBNN_BROWSER").as_deref() {
            Err(_) | Ok("") | Ok("chromium") => Ok(Engine::Chromium),
            Ok("firefox") => Ok(Engine::Firefox),
            Ok(other) => Err(format!("WEBNN_BROWSER={other}: chromium or firefox")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
        }
    }
}

/// One WebDriver process with one browser session; both end when it is dropped.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    engine: Engine,
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// One HTTP/1.1 request to 127.0.0.1:`port`; the response body as JSON.
fn request(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("webdriver: {e}"))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| format!("webdriver: {e}"))?;
    // The driver may keep the connection open: read the head, then Content-Length bytes.
    let mut reader = std::io::BufReader::new(s);
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).map_err(|e| format!("webdriver: {e}"))? == 0 {
            break;
        }
        if line == "\r\n" || line == "\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
    }
    let mut out = Vec::new();
    match length {
        Some(n) => {
            out.resize(n, 0);
            reader.read_exact(&mut out).map_err(|e| format!("webdriver: {e}"))?;
        }
        None => {
            reader.read_to_end(&mut out).map_err(|e| format!("webdriver: {e}"))?;
        }
    }
    let body = String::from_utf8_lossy(&out);
    let v: Value = serde_json::from_str(&body).map_err(|e| format!("webdriver: {e}: {body:.200}"))?;
    match v.get("value").and_then(|x| x.get("error")) {
        Some(err) => {
            let msg = v["value"].get("message").and_then(Value::as_str).unwrap_or("");
            Err(format!("webdriver {err}: {msg}"))
        }
        None => Ok(v.get("value").cloned().unwrap_or(Value::Null)),
    }
}

impl Browser {
    /// Starts the browser `WEBNN_BROWSER` names: `chromedriver` (the `CHROMEDRIVER` variable,
    /// or `/usr/bin/chromedriver`) and a headless Chromium (`CHROMIUM`, or `/usr/bin/chromium`);
    /// or `geckodriver` (`GECKODRIVER`, or on the PATH) and a headless Firefox (`FIREFOX`, or
    /// `/usr/bin/firefox-esr`).
    pub fn start() -> Result<Browser, String> {
        Browser::start_engine(Engine::from_env()?)
    }

    pub fn start_engine(engine: Engine) -> Result<Browser, String> {
        let var = |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.into());
        let (driver_bin, browser_bin) = match engine {
            Engine::Chromium => (var("CHROMEDRIVER", "/usr/bin/chromedriver"), var("CHROMIUM", "/usr/bin/chromium")),
            Engine::Firefox => (var("GECKODRIVER", "geckodriver"), var("FIREFOX", "/usr/bin/firefox-esr")),
        };
        let port = free_port().map_err(|e| e.to_string())?;
        let mut command = Command::new(&driver_bin);
        match engine {
            Engine::Chromium => command.arg(format!("--port={port}")),
            Engine::Firefox => command.args(["--host", "127.0.0.1", "--port", &port.to_string()]),
        };
        let driver = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {driver_bin} (bash scripts/setup.sh all installs it): {e}"))?;
        let mut b = Browser { driver, port, session: String::new(), engine };
        let start = Instant::now();
        while request(port, "GET", "/status", None).is_err() {
            if start.elapsed() > Duration::from_secs(20) {
                return Err(format!("{driver_bin} did not start within 20 s"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = match engine {
            Engine::Chromium => {
                let profile = std::env::temp_dir().join(format!("webnn-chromium-{}-{port}", std::process::id()));
                let mut args: Vec<String> = CHROMIUM_ARGS.iter().map(|s| s.to_string()).collect();
                args.push(format!("--user-data-dir={}", profile.display()));
                json!({"capabilities": {"alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {"binary": browser_bin, "args": args}
                }}})
            }
            // geckodriver makes a fresh profile per session.
            Engine::Firefox => json!({"capabilities": {"alwaysMatch": {
                "browserName": "firefox",
                "moz:firefoxOptions": {"binary": browser_bin, "args": ["-headless", "-width", "1280", "-height", "1000"], "prefs": firefox_prefs()}
            }}}),
        };
        let v = request(port, "POST", "/session", Some(&caps))?;
        b.session = v.get("sessionId").and_then(Value::as_str).ok_or("no session id")?.to_owned();
        // Long test runs poll rather than wait in one script; a generous limit covers loading.
        b.post("timeouts", &json!({"script": 600_000, "pageLoad": 120_000}))?;
        Ok(b)
    }

    /// The browser this drives.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    fn post(&self, what: &str, body: &Value) -> Result<Value, String> {
        request(self.port, "POST", &format!("/session/{}/{what}", self.session), Some(body))
    }

    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.post("url", &json!({ "url": url })).map(|_| ())
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its result.
    pub fn eval(&self, script: &str, args: Value) -> Result<Value, String> {
        self.post("execute/sync", &json!({ "script": script, "args": args }))
    }

    /// Waits until `expr` (a JavaScript expression) is truthy and returns its value.
    pub fn wait_for(&self, expr: &str, limit: Duration) -> Result<Value, String> {
        let start = Instant::now();
        loop {
            let v = self.eval(&format!("return {expr};"), json!([]))?;
            if !v.is_null() && v != Value::Bool(false) {
                return Ok(v);
            }
            if start.elapsed() > limit {
                return Err(format!("timed out after {} s waiting for {expr}", limit.as_secs()));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// A PNG screenshot of the page.
    pub fn screenshot(&self) -> Result<Vec<u8>, String> {
        let v = request(self.port, "GET", &format!("/session/{}/screenshot", self.session), None)?;
        base64(v.as_str().ok_or("no screenshot data")?)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(self.port, "DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64(s: &str) -> Result<Vec<u8>, String> {
    let val = |c: u8| -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("bad base64 byte {c}")),
        } as u32)
    };
    let clean: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=').collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..chunk.len().saturating_sub(1)]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_decodes() {
        assert_eq!(super::base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(super::base64("aGk=").unwrap(), b"hi");
        assert_eq!(super::base64("YWJj").unwrap(), b"abc");
    }
}
