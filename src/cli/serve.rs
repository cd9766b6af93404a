//! `linear-layout serve [--port P]`: a page on this machine to explore layouts in a browser.
//!
//! The page is one form: a layout (Triton attribute text, a tensor type or JSON, as `show`
//! takes it — never a file; or, with a TTGIR module pasted below, an alias of it), a shape, a
//! target and an element type, and optionally a second layout to convert to. Submitting it (its button, or Enter in a field) asks the server for
//! the same page with the answers below the form: the layout's picture (its LDS bank map for a
//! shared layout), its bases and both of Triton's views; for a second layout, the conversion's kind,
//! cost and instructions and the kernel the crate generates for it, with its operation counts.
//! Everything is computed on the server, so the page has no scripts.
//!
//! The server listens on the loopback address only and answers one request at a time; a
//! request is read for at most [`READ_TIMEOUT`] and [`MAX_REQUEST_BYTES`] bytes, and every
//! answer is bounded by the crate's own limits (as `batch` is), so nothing a page sends can
//! crash or stall it. Bad input is the crate's one-line error, in the page.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::Duration;

use linear_layout::heuristics::convert::convert_cost;
use linear_layout::lower::{Dtype, convert_kernel};
use linear_layout::target::{TARGETS, Target};
use linear_layout::view::{self, PictureOptions};

use super::layout_arg::{Loaded, from_module, load, parse_shape};
use super::llc;

/// Arguments of `serve`.
#[derive(clap::Args)]
pub struct Args {
    /// The port on 127.0.0.1 to listen on (0: any free one; the address is printed).
    #[arg(long, default_value_t = 8737)]
    pub port: u16,
}

/// The target the page starts on (a default of the command, not a fact).
const DEFAULT_SERVE_TARGET: &str = "gfx942";

/// The most bytes of a request the server reads (a pasted module travels in the query).
const MAX_REQUEST_BYTES: usize = 256 * 1024;

/// How long the server waits for a request's bytes, and for the browser to take the answer.
const READ_TIMEOUT: Duration = Duration::from_secs(2);

/// Serves until the process is stopped; prints the page's address first.
pub fn run(args: &Args) -> Result<String, String> {
    let listener =
        TcpListener::bind(("127.0.0.1", args.port)).map_err(|e| format!("port {}: {e}", args.port))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    println!("linear-layout serve: http://{address}/ (this machine only; Ctrl-C stops it)");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    for stream in listener.incoming().flatten() {
        // A connection that fails (the browser went away) ends only itself.
        let _ = answer(stream);
    }
    Ok(String::new())
}

/// Reads one request from `stream` and writes its answer.
fn answer(mut stream: TcpStream) -> std::io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    stream.set_write_timeout(Some(READ_TIMEOUT))?;
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() <= MAX_REQUEST_BYTES {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        request.extend_from_slice(&chunk[..n]);
    }
    let (status, body) = respond(&request);
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()?;
    // Closing with unread bytes would reset the connection before the browser reads the
    // answer: say the answer is done, then take what is left of the request (bounded by the
    // read timeout and a megabyte).
    stream.shutdown(Shutdown::Write)?;
    let _ = std::io::copy(&mut (&stream).take(1 << 20), &mut std::io::sink());
    Ok(())
}

/// The status and page answering a request's bytes.
fn respond(request: &[u8]) -> (&'static str, String) {
    if request.len() > MAX_REQUEST_BYTES {
        return refused(
            "431 Request Header Fields Too Large",
            format!("the request is longer than {MAX_REQUEST_BYTES} bytes"),
        );
    }
    let text = String::from_utf8_lossy(request);
    let line = text.lines().next().unwrap_or("");
    let mut words = line.split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    if method != "GET" {
        return refused(
            "405 Method Not Allowed",
            format!("{method}: the page only reads (GET)"),
        );
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path != "/" {
        return refused("404 Not Found", format!("{path}: no such page; the page is /"));
    }
    let form = Form::of(query);
    let results = if form.layout.is_empty() {
        Ok(String::new())
    } else {
        results(&form)
    };
    ("200 OK", page(&form, &results))
}

/// A request the page does not answer: its status, and an empty form with why.
fn refused(status: &'static str, why: String) -> (&'static str, String) {
    (status, page(&Form::default(), &Err(why)))
}

/// The form's fields.
#[derive(Default)]
struct Form {
    layout: String,
    shape: String,
    target: String,
    dtype: String,
    second: String,
    /// A TTGIR module whose aliases the layout fields may name (`#mma`, or a tensor type).
    ttgir: String,
}

impl Form {
    /// The fields of a query string (`a=b&c=d`, URL-encoded); the usual ones where missing.
    fn of(query: &str) -> Form {
        let mut form = Form {
            shape: "128x128".into(),
            target: DEFAULT_SERVE_TARGET.into(),
            dtype: "f16".into(),
            ..Form::default()
        };
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = decode(value);
            match key {
                "layout" => form.layout = value,
                "shape" => form.shape = value,
                "target" => form.target = value,
                "dtype" => form.dtype = value,
                "second" => form.second = value,
                "ttgir" => form.ttgir = value,
                _ => {}
            }
        }
        form
    }
}

/// A URL-encoded value decoded (`+` a space, `%XX` a byte; malformed escapes kept as written).
fn decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A layout field's value: its text, or with a pasted TTGIR module a name of the module's (an
/// alias, a tensor type using them, or nothing for its one encoding) — never a file, which is
/// not the page's to read.
fn loaded(text: &str, ttgir: &str, shape: &[u64], what: &str) -> Result<Loaded, String> {
    let text = text.trim();
    if text.starts_with('@') {
        return Err(format!("{what}: the page takes the layout's text, not a file"));
    }
    let names_an_alias =
        text.is_empty() || text.starts_with("tensor<") || (text.starts_with('#') && !text.contains('<'));
    if !ttgir.trim().is_empty() && names_an_alias {
        let name = (!text.is_empty()).then_some(text);
        return from_module(ttgir, name, Some(shape), "the TTGIR", "its alias in the field");
    }
    load(text, Some(shape), what)
}

/// The answers below the form, or the one-line error of the first thing that failed.
fn results(form: &Form) -> Result<String, String> {
    let shape = parse_shape(&form.shape)?;
    let target = Target::by_name(&form.target)?;
    let dtype = Dtype::parse(&form.dtype).map_err(|e| e.to_string())?;
    let first = loaded(&form.layout, &form.ttgir, &shape, "layout")?;
    let mut out = String::new();
    let options = PictureOptions {
        title: first.title.clone(),
        bits: dtype.bits(),
        banks: target.lds_banks,
        padding: first.padding.clone(),
    };
    let picture = view::inline_svg(&first.layout, &options).map_err(|e| format!("layout: {e}"))?;
    let tensor_view = view::tensor_view(&first.layout).map_err(|e| format!("layout: {e}"))?;
    let hardware_view = view::hardware_view(&first.layout).map_err(|e| format!("layout: {e}"))?;
    let _ = write!(
        out,
        "<h2>The layout</h2>\n<p id=\"summary\">{}</p>\n<div id=\"picture\">{}</div>\n<h3>Bases</h3>\n<pre id=\"bases\">{}</pre>\n<h3>Tensor view</h3>\n<pre id=\"view\">{}</pre>\n<h3>Hardware view</h3>\n<pre id=\"hw\">{}</pre>\n",
        view::escape(&first.title),
        picture,
        view::escape(&view::pasteable_bases(&first.layout)),
        view::escape(&tensor_view),
        view::escape(&hardware_view)
    );
    if !form.second.trim().is_empty() {
        let second = loaded(&form.second, &form.ttgir, &shape, "second layout")?;
        let cost = convert_cost(&first.layout, &second.layout, dtype.bits(), target)
            .map_err(|e| e.message().to_string())?;
        let instructions: Vec<String> = cost
            .instructions
            .iter()
            .map(|(op, n)| format!("{op} × {n}"))
            .collect();
        let _ = write!(
            out,
            "<h2>Converting to {}</h2>\n<table id=\"cost\"><tr><th>kind</th><td id=\"kind\">{}</td></tr><tr><th>cycles (estimate)</th><td>{}</td></tr><tr><th>LDS bytes</th><td>{}</td></tr><tr><th>bank conflicts</th><td>{}</td></tr><tr><th>instructions per thread</th><td>{}</td></tr><tr><th>why</th><td>{}</td></tr></table>\n",
            view::escape(&second.title),
            cost.kind.as_str(),
            cost.cycles,
            cost.lds_bytes,
            cost.bank_conflicts,
            view::escape(&instructions.join(", ")),
            view::escape(&cost.explanation)
        );
        // A round trip through LDS: the bank map of the shared layout it chose (one repetition).
        if let Some(shared) = cost.shared_layout() {
            let options = PictureOptions {
                title: "the LDS layout of the round trip: offset and bank of each element".into(),
                padding: Vec::new(),
                ..options.clone()
            };
            let map = view::lds_picture(shared, &options).map_err(|e| format!("the LDS layout: {e}"))?;
            let _ = writeln!(out, "<div id=\"lds\">{map}</div>");
        }
        let _ = writeln!(
            out,
            "<h3>The kernel the crate generates for it ({}): load through the layout, convert, store</h3>",
            target.name
        );
        let kernel = convert_kernel(&first.layout, &second.layout, &shape, dtype, target)
            .and_then(|k| Ok((k.llvm_ir()?, k.program.op_counts())));
        match kernel {
            Ok((ir, counts)) => {
                let mut counts: Vec<String> = counts.iter().map(|(op, n)| format!("{op} × {n}")).collect();
                if let Some(asm) = llc::assemble(&ir, target.name) {
                    counts.push(format!(
                        "{} instructions (llc-22 -O3)",
                        llc::machine_instructions(&asm)
                    ));
                }
                let _ = write!(
                    out,
                    "<p id=\"counts\">{}</p>\n<pre id=\"code\">{}</pre>\n",
                    view::escape(&counts.join(", ")),
                    view::escape(&ir)
                );
            }
            // The cost stands without the code (a target the lowering does not take, say).
            Err(e) => {
                let _ = writeln!(
                    out,
                    "<p class=\"error\" id=\"code-error\">{}</p>",
                    view::escape(&e.to_string())
                );
            }
        }
    }
    Ok(out)
}

/// The page: the form (with its fields as sent) and the answers or the error.
fn page(form: &Form, results: &Result<String, String>) -> String {
    let mut targets = String::new();
    for t in TARGETS {
        let selected = if t.name == form.target { " selected" } else { "" };
        let _ = write!(targets, "<option{selected}>{}</option>", t.name);
    }
    let answer = match results {
        Ok(html) => html.clone(),
        Err(e) => format!(
            "<p class=\"error\" id=\"error\">{}</p>",
            view::escape(e.lines().next().unwrap_or(""))
        ),
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>linear-layout</title>\n\
         <style>body{{margin:12px;font-family:sans-serif}} input{{font-family:monospace}} pre{{overflow:auto;max-height:40em;background:#f6f6f6;padding:6px}} .error{{color:#b00020}} th{{text-align:left;padding-right:1em}}</style>\n\
         </head>\n<body>\n<h1>linear-layout</h1>\n<form method=\"get\" action=\"/\">\n\
         <p><label>Layout <input id=\"layout\" name=\"layout\" size=\"110\" value=\"{}\" placeholder=\"#ttg.blocked&lt;{{…}}&gt;, a tensor type or JSON\"></label> <button type=\"submit\" id=\"show\">Show</button></p>\n\
         <p><label>Shape <input id=\"shape\" name=\"shape\" size=\"12\" value=\"{}\"></label> \
         <label>Target <select id=\"target\" name=\"target\">{targets}</select></label> \
         <label>Element type <input id=\"dtype\" name=\"dtype\" size=\"5\" value=\"{}\"></label></p>\n\
         <p><label>Convert to <input id=\"second\" name=\"second\" size=\"110\" value=\"{}\" placeholder=\"a second layout (optional)\"></label></p>\n\
         <p><label>TTGIR (optional): a module whose aliases the fields name (<code>#mma</code>, a tensor type, or nothing for its one encoding)<br>\
         <textarea id=\"ttgir\" name=\"ttgir\" rows=\"6\" cols=\"110\">{}</textarea></label></p>\n\
         </form>\n{answer}\n</body>\n</html>\n",
        view::escape(&form.layout),
        view::escape(&form.shape),
        view::escape(&form.dtype),
        view::escape(&form.second),
        view::escape(&form.ttgir)
    )
}
