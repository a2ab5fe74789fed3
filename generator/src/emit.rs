//! `Writer`: lines of Python with their indentation.
//!
//! A function's body is written into a writer of its own first, so that the
//! `global`/`nonlocal` declarations its statements turned out to need can be
//! written above it (`Writer::take` and `Writer::append`).

/// Python source as lines, four spaces per level.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    lines: Vec<(usize, String)>,
    level: usize,
}

impl Writer {
    pub fn new() -> Self {
        Writer::default()
    }

    /// One line at the current level.
    pub fn line(&mut self, text: impl Into<String>) {
        self.lines.push((self.level, text.into()));
    }

    pub fn indent(&mut self) {
        self.level += 1;
    }

    pub fn dedent(&mut self) {
        self.level -= 1;
    }

    /// Lines written so far (a mark for `pass_if_empty`).
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Writes `pass` when nothing was written since `mark` (an empty block).
    pub fn pass_if_empty(&mut self, mark: usize) {
        if self.lines.len() == mark {
            self.line("pass");
        }
    }

    /// Takes the lines out, leaving an empty writer at level 0.
    pub fn take(&mut self) -> Writer {
        std::mem::take(self)
    }

    /// Appends another writer's lines, indented by the current level.
    pub fn append(&mut self, other: Writer) {
        let base = self.level;
        self.lines.extend(other.lines.into_iter().map(|(l, t)| (l + base, t)));
    }

    /// The source text, one `\n` after every line.
    pub fn finish(&self) -> String {
        let mut s = String::new();
        for (level, text) in &self.lines {
            for _ in 0..*level {
                s.push_str("    ");
            }
            s.push_str(text);
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_bodies_are_indented() {
        let mut body = Writer::new();
        body.line("x = 1");
        let mut w = Writer::new();
        w.line("def f():");
        w.indent();
        w.line("global g");
        w.append(body);
        w.dedent();
        assert_eq!(w.finish(), "def f():\n    global g\n    x = 1\n");
    }
}
