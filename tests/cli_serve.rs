//! `linear-layout serve`: the page over plain HTTP (the form, answers, one-line errors, bad
//! requests that leave the server serving) and end to end in a real headless Chromium driven
//! through the WebDriver protocol (`chromedriver`): type a layout, see its picture, read the
//! conversion's cost.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

const BLOCKED: &str =
    "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const MFMA: &str =
    "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>";

/// A running `serve` on a free port, stopped when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_linear-layout"))
            .args(["serve", "--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap();
        let address = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        Server { child, address }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `request` (raw bytes) to `address`; the answer's status line and body (read to its
/// `Content-Length`, as a server that keeps the connection open sends it).
fn send(address: &str, request: &[u8]) -> (String, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    let mut chunk = [0u8; 65536];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&answer);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>())
                })
                .and_then(Result::ok);
            if length.is_some_and(|length| body.len() >= length) {
                break;
            }
        }
    }
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (head.lines().next().unwrap_or("").to_string(), body.to_string())
}

fn get(address: &str, target: &str) -> (String, String) {
    send(
        address,
        format!("GET {target} HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes(),
    )
}

/// `text` URL-encoded for a query string.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_page_answers_over_http_and_survives_bad_requests() {
    let server = Server::start();
    let (status, page) = get(&server.address, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(page.contains("<input id=\"layout\" name=\"layout\""), "{page}");
    assert!(!page.contains("<script"));

    let query = format!(
        "/?layout={}&shape=128x128&target=gfx942&dtype=f16&second={}",
        encode(BLOCKED),
        encode(MFMA)
    );
    let (status, page) = get(&server.address, &query);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(page.contains("<td id=\"kind\">lds</td>"), "{page}");
    // The layout's picture and the LDS layout's bank map, each a row at a time.
    assert_eq!(page.matches("<g class=\"row\"").count(), 2 * 128);
    assert!(page.contains("<div id=\"lds\">") && page.contains("data-bank=\""));
    assert!(
        page.contains("define amdgpu_kernel void @convert("),
        "the generated kernel"
    );
    assert!(page.contains("lds_write × 8"), "its operation counts");
    if Command::new("llc-22")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        assert!(
            page.contains(" instructions (llc-22 -O3)</p>"),
            "and its instructions"
        );
    }

    // A pasted TTGIR module: the fields name its aliases.
    let module = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/lower/ttgir/d_cvt_blocked_to_mfma_128x128_f16.gfx942.ttgir"
    ))
    .unwrap();
    let query = format!(
        "/?layout=%23blocked&second=%23mma&shape=128x128&ttgir={}",
        encode(&module)
    );
    let (_, page) = get(&server.address, &query);
    assert!(page.contains("<td id=\"kind\">lds</td>"), "{page}");
    assert!(
        page.contains("<p id=\"summary\">#ttg.blocked&lt;{sizePerThread = [1, 8]"),
        "the alias names the module's blocked layout"
    );

    // Bad input: the crate's one-line error, in the page.
    let (_, page) = get(&server.address, &format!("/?layout={}", encode("#ttg.nope<{}>")));
    let error = page.split("<p class=\"error\" id=\"error\">").nth(1).unwrap();
    let error = &error[..error.find("</p>").unwrap()];
    assert!(
        error.contains("unknown attribute") && !error.contains('\n'),
        "{error}"
    );
    // A file is not the page's to read.
    let (_, page) = get(&server.address, &format!("/?layout={}", encode("@/etc/passwd")));
    assert!(page.contains("not a file"), "{page}");

    // Requests that are not the page's: answered, and the server goes on serving.
    assert!(
        send(&server.address, b"POST / HTTP/1.1\r\n\r\n")
            .0
            .contains("405")
    );
    assert!(get(&server.address, "/elsewhere").0.contains("404"));
    assert!(send(&server.address, &vec![b'a'; 400_000]).0.contains("431"));
    assert!(
        send(&server.address, b"\xff\xfe garbage\r\n\r\n")
            .0
            .contains("405")
    );
    drop(TcpStream::connect(&server.address).unwrap()); // a connection that sends nothing
    let shape = format!("/?layout={}&shape=65536x65536", encode(BLOCKED));
    assert!(
        get(&server.address, &shape).1.contains("id=\"error\""),
        "a picture past the limits"
    );
    assert_eq!(get(&server.address, "/").0, "HTTP/1.1 200 OK");
}

/// A WebDriver session of `chromedriver` driving headless Chromium.
struct Browser {
    driver: Child,
    address: String,
    session: String,
}

impl Browser {
    /// A session, or None where `chromedriver` or Chromium is not installed.
    fn start() -> Option<Browser> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let address = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&address).is_err() {
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut browser = Browser {
            driver,
            address,
            session: String::new(),
        };
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
        ];
        let answer = browser.call(
            "POST",
            "/session",
            json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"args": args}}}}),
        );
        browser.session = answer["value"]["sessionId"].as_str()?.to_string();
        Some(browser)
    }

    /// One WebDriver command (a `Null` body: none); its JSON answer.
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let body = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.address,
            body.len()
        );
        let (_, answer) = send(&self.address, request.as_bytes());
        serde_json::from_str(&answer).unwrap_or(Value::Null)
    }

    fn session_call(&self, method: &str, path: &str, body: Value) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn open(&self, url: &str) {
        self.session_call("POST", "/url", json!({ "url": url }));
    }

    /// The element a CSS selector finds, waiting up to 20 s for it.
    fn element(&self, selector: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let answer = self.session_call(
                "POST",
                "/element",
                json!({"using": "css selector", "value": selector}),
            );
            if let Some(id) = answer["value"]
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(Value::as_str)
            {
                return id.to_string();
            }
            assert!(Instant::now() < deadline, "no {selector}: {answer}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn type_into(&self, selector: &str, text: &str) {
        let element = self.element(selector);
        self.session_call("POST", &format!("/element/{element}/clear"), json!({}));
        self.session_call(
            "POST",
            &format!("/element/{element}/value"),
            json!({ "text": text }),
        );
    }

    /// The text of what a CSS selector finds, waiting up to 20 s for it to be drawn (a page
    /// still loading has its elements before their text).
    fn text_of(&self, selector: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let element = self.element(selector);
            let answer = self.session_call("GET", &format!("/element/{element}/text"), Value::Null);
            let text = answer["value"].as_str().unwrap_or("");
            if !text.is_empty() || Instant::now() > deadline {
                return text.to_string();
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// How many elements a CSS selector finds now.
    fn count(&self, selector: &str) -> usize {
        let answer = self.session_call(
            "POST",
            "/elements",
            json!({"using": "css selector", "value": selector}),
        );
        answer["value"].as_array().map_or(0, Vec::len)
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            self.call("DELETE", &format!("/session/{}", self.session), Value::Null);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[test]
fn in_chromium_typing_a_layout_shows_its_picture_and_the_cost() {
    let Some(browser) = Browser::start() else {
        eprintln!("skipping: no chromedriver and Chromium (Debian's chromium and chromium-driver)");
        return;
    };
    let server = Server::start();
    browser.open(&format!("http://{}/", server.address));
    // Type the layout; Enter in the field shows it.
    browser.type_into("#shape", "64x64");
    browser.type_into("#layout", &format!("{MFMA}\u{E007}"));
    let summary = browser.text_of("#summary");
    assert!(summary.contains("amd_mfma"), "{summary:?}");
    assert_eq!(
        browser.count("#picture g.row"),
        64,
        "the picture, a row of cells per tensor row"
    );
    assert!(browser.text_of("#bases").contains("register"));
    assert!(browser.text_of("#hw").starts_with("Warp0:"), "the hardware view");
    // A second layout, and the first button: the conversion's cost and its code.
    browser.type_into("#second", BLOCKED);
    let show = browser.element("#show");
    browser.session_call("POST", &format!("/element/{show}/click"), json!({}));
    assert_eq!(browser.text_of("#kind"), "lds");
    assert!(browser.text_of("#counts").contains("lds_write"));
    // Bad input: the one-line error, in the page.
    browser.type_into("#layout", "#ttg.blocked<{\u{E007}");
    assert!(
        browser.text_of("#error").starts_with("layout: "),
        "the crate's error"
    );
}
