fn main() {
    let text = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    let m = linear_layout::ttgir::Module::parse(&text).unwrap();
    for (i, op) in m.ops.iter().enumerate() {
        let ops: Vec<String> = op.operands.iter().map(|&v| m.values[v].name.clone()).collect();
        let res: Vec<String> = op
            .results
            .iter()
            .map(|&v| format!("{} {:?}", m.values[v].name, m.values[v].ty.shape))
            .collect();
        println!(
            "{i} {} {:?} -> {:?} kw={:?} mask={:?} other={:?} attrs={:?} const={:?} body={:?}",
            op.name, ops, res, op.keyword, op.mask, op.other, op.attrs, op.constant, op.body
        );
    }
    for f in &m.funcs {
        println!(
            "func {} args {:?} {:?}",
            f.name,
            f.args
                .iter()
                .map(|&a| (&m.values[a].name, &m.values[a].ty.element))
                .collect::<Vec<_>>(),
            f.arg_attrs
        );
    }
}
