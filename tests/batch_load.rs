//! The batch protocol under load: 100,000 mixed requests (valid, invalid, malformed) streamed
//! through `batch::run` get one answer per line, in order, with their ids echoed, while the
//! process's resident memory stays flat (measured from `/proc/self/statm` after 10,000 and after
//! 100,000 answers). Requests are generated as they are read and answers checked as they are
//! written, so the test itself holds neither stream.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::rc::Rc;
use std::time::Instant;

use linear_layout::batch;
use serde_json::{Value, json};

const REQUESTS: usize = 100_000;
const FIRST_SAMPLE: usize = 10_000;

/// What the answer to a request must say.
struct Expected {
    /// The echoed id (`None`: the answer has no `id`).
    id: Option<Value>,
    /// `ok`, where the request decides it.
    ok: Option<bool>,
}

/// Request `i` of the stream (a line without its newline; `None` for a blank line, which gets
/// no answer) and what its answer must say.
fn request(i: usize) -> (Option<Vec<u8>>, Option<Expected>) {
    let id = match i % 5 {
        0 => json!(i),
        1 => json!(format!("req-{i}")),
        2 => json!({"n": i, "tag": [1, 2]}),
        3 => Value::Null,
        _ => json!(-(i as i64)),
    };
    let swap = json!({"in_dims": {"x": [[2], [1]]}, "out_dims": {"y": 4}});
    let lanes = json!({"in_dims": {"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, "out_dims": {"dim0": 64}});
    let valid = |body: Value| {
        let mut r = body;
        r["id"] = id.clone();
        (
            Some(r.to_string().into_bytes()),
            Some(Expected {
                id: Some(id.clone()),
                ok: Some(true),
            }),
        )
    };
    let invalid = |body: Value| {
        let mut r = body;
        r["id"] = id.clone();
        (
            Some(r.to_string().into_bytes()),
            Some(Expected {
                id: Some(id.clone()),
                ok: Some(false),
            }),
        )
    };
    let malformed = |line: &[u8]| {
        (
            Some(line.to_vec()),
            Some(Expected {
                id: None,
                ok: Some(false),
            }),
        )
    };
    // Cheap requests mostly (a debug build answers one in a few hundred microseconds); the
    // costlier ops (encodings, products, costs) once in a hundred each.
    match i % 100 {
        0 => valid(
            json!({"op": "to_linear_layout", "encoding": {"kind": "blocked", "sizePerThread": [1, 4], "threadsPerWarp": [8, 8], "warpsPerCTA": [2, 2], "order": [1, 0]}, "shape": [32, 32]}),
        ),
        1 => valid(
            json!({"op": "to_linear_layout", "encoding": {"kind": "mlir", "text": "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"}, "shape": [64, 64]}),
        ),
        2 => valid(json!({"op": "product", "layout": swap, "other": lanes})),
        3 => valid(
            json!({"op": "compose", "layout": swap, "outer": {"in_dims": {"y": [[1], [2]]}, "out_dims": {"z": 4}}}),
        ),
        4 => valid(json!({"op": "convert_cost",
            "src": {"in_dims": {"register": [[1]], "lane": [[2], [4], [8], [16], [32], [64]]}, "out_dims": {"dim0": 128}},
            "dst": {"in_dims": {"register": [[64]], "lane": [[1], [2], [4], [8], [16], [32]]}, "out_dims": {"dim0": 128}},
            "shape": [128], "element_bits": 16, "target": "gfx942"})),
        5 => {
            valid(json!({"op": "apply", "layout": lanes, "inputs": {"register": 1, "lane": (i % 32) as i64}}))
        }
        6 => valid(json!({"op": "num_consecutive_in_out", "layout": lanes})),
        _ => match i % 10 {
            0 => valid(json!({"op": "invert", "layout": swap})),
            1 => valid(json!({"op": "is_injective", "layout": swap})),
            2 => invalid(json!({"op": "no_such_op"})),
            3 => invalid(json!({"op": "invert", "layout": {"in_dims": {"x": [[3]]}, "out_dims": {"y": 3}}})),
            4 => invalid(json!({"op": "apply", "layout": swap})),
            5 => malformed(b"{not json"),
            6 => malformed(if i % 20 == 6 {
                b"[1, 2, 3]"
            } else {
                b"\xff\xfe{\"op\": 1}"
            }),
            7 => malformed(b"{\"op\": \"invert\", \"id\": 7"),
            8 => (
                // No id: the answer has none either.
                Some(
                    json!({"op": "is_surjective", "layout": swap})
                        .to_string()
                        .into_bytes(),
                ),
                Some(Expected {
                    id: None,
                    ok: Some(true),
                }),
            ),
            _ => (Some(b"   \t".to_vec()), None),
        },
    }
}

/// The request stream, generated as it is read; what each answer must say goes to `expected`.
struct Requests {
    next: usize,
    line: Vec<u8>,
    at: usize,
    expected: Rc<RefCell<VecDeque<Expected>>>,
}

impl Read for Requests {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.line.len() {
            if self.next == REQUESTS {
                return Ok(0);
            }
            let (line, expected) = request(self.next);
            self.next += 1;
            self.line = line.unwrap_or_default();
            self.line.push(b'\n');
            self.at = 0;
            if let Some(e) = expected {
                self.expected.borrow_mut().push_back(e);
            }
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Resident memory of this process, in bytes.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("resident pages");
    pages * 4096
}

/// Checks answers as they are written, one per line, against the expected queue.
struct Answers {
    pending: Vec<u8>,
    seen: usize,
    expected: Rc<RefCell<VecDeque<Expected>>>,
    resident_at_first_sample: Option<u64>,
}

impl Write for Answers {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        while let Some(end) = self.pending.iter().position(|&c| c == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let answer: Value = serde_json::from_slice(&line[..end]).expect("an answer is JSON");
            let e = self
                .expected
                .borrow_mut()
                .pop_front()
                .unwrap_or_else(|| panic!("answer {} has no request", self.seen));
            assert_eq!(answer.get("id"), e.id.as_ref(), "answer {}: {answer}", self.seen);
            let ok = answer["ok"].as_bool().expect("a boolean 'ok'");
            if let Some(want) = e.ok {
                assert_eq!(ok, want, "answer {}: {answer}", self.seen);
            }
            if !ok {
                assert!(answer["error"].is_string(), "answer {}: {answer}", self.seen);
            }
            self.seen += 1;
            if self.seen == FIRST_SAMPLE {
                self.resident_at_first_sample = Some(resident_bytes());
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn hundred_thousand_mixed_requests() {
    let expected = Rc::new(RefCell::new(VecDeque::new()));
    let input = BufReader::new(Requests {
        next: 0,
        line: Vec::new(),
        at: 0,
        expected: Rc::clone(&expected),
    });
    let mut answers = Answers {
        pending: Vec::new(),
        seen: 0,
        expected: Rc::clone(&expected),
        resident_at_first_sample: None,
    };
    let start = Instant::now();
    batch::run(input, &mut answers).expect("in-memory streams cannot fail");
    let elapsed = start.elapsed();
    let resident = resident_bytes();
    assert!(
        expected.borrow().is_empty(),
        "{} requests were not answered",
        expected.borrow().len()
    );
    assert!(answers.pending.is_empty(), "a partial answer line");
    // Every answer met its request's expectation, and every expectation was met.
    let answered = answers.seen;
    assert!(answered > REQUESTS * 8 / 10, "only {answered} answers");
    let first = answers.resident_at_first_sample.expect("10,000 answers");
    let growth = resident.saturating_sub(first);
    println!(
        "{REQUESTS} requests ({answered} answered) in {elapsed:.2?}; resident memory {:.1} MiB after {FIRST_SAMPLE}, {:.1} MiB after {REQUESTS} answers",
        first as f64 / (1 << 20) as f64,
        resident as f64 / (1 << 20) as f64
    );
    // Flat: the last 90,000 answers may not add more than 1 MiB (allocator noise).
    assert!(
        growth <= 1 << 20,
        "resident memory grew by {growth} bytes from answer {FIRST_SAMPLE} to {REQUESTS}"
    );
}
