//! Plots as inline SVG, drawn here (no scripts, no fonts fetched): a line
//! chart of one or more series over time, and a horizontal bar chart with an
//! optional reference line. Pure functions of their data, escaped text.

use super::escape;
use std::fmt::Write as _;

/// Colours of successive series (Okabe–Ito, readable by colour-blind people).
const PALETTE: &[&str] = &["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000"];

/// One line of a line chart.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A line chart of `series` (x from 0, y from 0), with axes, grid and a
/// legend when there is more than one series. Points are marked while there
/// are few of them.
pub fn line_chart(title: &str, x_label: &str, y_label: &str, series: &[Series]) -> String {
    let (w, h) = (640.0, 260.0);
    let (left, right, top, bottom) = (58.0, 16.0, 30.0, 42.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let x_max = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).fold(0.0, f64::max);
    let y_max = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0, f64::max);
    let (x_step, x_top) = nice_axis(x_max);
    let (mut y_step, mut y_top) = nice_axis(y_max);
    // Counts get whole-number ticks.
    if y_step < 1.0 && series.iter().flat_map(|s| &s.points).all(|p| p.1.fract() == 0.0) {
        (y_step, y_top) = (1.0, y_max.ceil().max(1.0));
    }
    let x = |v: f64| left + pw * v / x_top;
    let y = |v: f64| top + ph - ph * v / y_top;
    let mut s = open(w, h, title);
    axis_ticks(&mut s, y_step, y_top, |v| {
        format!("<line class=\"grid\" x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", left + pw, y(v), y(v), left - 6.0, y(v) + 4.0, tick(v, y_step))
    });
    axis_ticks(&mut s, x_step, x_top, |v| {
        format!("<line class=\"axis\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>", x(v), x(v), top + ph, top + ph + 4.0, x(v), top + ph + 16.0, tick(v, x_step))
    });
    let _ = write!(s, "<line class=\"axis\" x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/>", left + pw, top + ph, top + ph);
    let _ = write!(s, "<line class=\"axis\" x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{:.1}\"/>", top + ph);
    let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>", left + pw / 2.0, h - 6.0, escape(x_label));
    let _ =
        write!(s, "<text transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>", top + ph / 2.0, escape(y_label));
    if series.iter().all(|s| s.points.is_empty()) {
        let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">no samples</text>", left + pw / 2.0, top + ph / 2.0);
    }
    for (i, line) in series.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let points: Vec<String> = line.points.iter().map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b))).collect();
        let _ = write!(
            s,
            "<polyline class=\"series\" stroke=\"{colour}\" points=\"{}\"><title>{}</title></polyline>",
            points.join(" "),
            escape(&line.name)
        );
        if line.points.len() <= 40 {
            for &(a, b) in &line.points {
                let _ = write!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{colour}\"><title>{}: {} at {}</title></circle>",
                    x(a),
                    y(b),
                    escape(&line.name),
                    tick(b, y_step / 10.0),
                    tick(a, x_step / 10.0)
                );
            }
        }
        if series.len() > 1 {
            let ly = top + 4.0 + 14.0 * i as f64;
            let _ = write!(s, "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"3\" fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>", left + pw - 10.0, ly, left + pw - 14.0, ly + 4.0, escape(&line.name));
        }
    }
    s.push_str("</svg>");
    s
}

/// One bar: its label (text), its value, the text printed after it.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub text: String,
}

/// Horizontal bars, longest scale `max` (at least the largest value); a
/// dashed reference line at `rule` (value, label), and the bars below it
/// drawn in the `low` colour.
pub fn bar_chart(title: &str, bars: &[Bar], max: f64, rule: Option<(f64, &str)>) -> String {
    let (label_w, bar_w, text_w, row) = (300.0, 300.0, 90.0, 18.0);
    let top = 34.0;
    let w = label_w + bar_w + text_w;
    let h = top + row * bars.len().max(1) as f64 + 10.0;
    let max = bars.iter().map(|b| b.value).fold(max, f64::max).max(f64::MIN_POSITIVE);
    let x = |v: f64| label_w + bar_w * v / max;
    let mut s = open(w, h, title);
    if bars.is_empty() {
        let _ = write!(s, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">none</text>", w / 2.0, top + 12.0);
    }
    for (i, b) in bars.iter().enumerate() {
        let y = top + row * i as f64;
        let low = rule.is_some_and(|(r, _)| b.value < r);
        let label: String = if b.label.chars().count() > 46 { b.label.chars().take(45).chain(['…']).collect() } else { b.label.clone() };
        let _ = write!(
            s,
            "<g><title>{}: {}</title><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><rect class=\"bar{}\" x=\"{label_w}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
            escape(&b.label),
            escape(&b.text),
            label_w - 6.0,
            y + 12.0,
            escape(&label),
            if low { " low" } else { "" },
            y + 2.0,
            (x(b.value) - label_w).max(0.5),
            row - 4.0,
            x(b.value) + 4.0,
            y + 12.0,
            escape(&b.text)
        );
    }
    if let Some((r, label)) = rule {
        let _ = write!(s, "<line class=\"rule\" x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#b42318\">{}</text>", x(r), x(r), top - 6.0, h - 6.0, x(r), top - 9.0, escape(label));
    }
    s.push_str("</svg>");
    s
}

fn open(w: f64, h: f64, title: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{t}\"><title>{t}</title><text class=\"title\" x=\"8\" y=\"16\">{t}</text>",
        t = escape(title)
    )
}

/// Calls `mark` for each tick 0, step, 2·step, ... up to `top`.
fn axis_ticks(s: &mut String, step: f64, top: f64, mark: impl Fn(f64) -> String) {
    let mut i = 0;
    while (i as f64) * step <= top * (1.0 + 1e-9) && i <= 20 {
        s.push_str(&mark(i as f64 * step));
        i += 1;
    }
}

/// A tick step of 1, 2 or 5 times a power of ten, the smallest giving at
/// most eight ticks, and the axis' end (a multiple of it, at least `max`).
pub fn nice_axis(max: f64) -> (f64, f64) {
    if !(max.is_finite() && max > 0.0) {
        return (1.0, 1.0);
    }
    let power = 10f64.powf((max / 8.0).log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0, 20.0].iter().map(|m| m * power).find(|s| (max / s).ceil() <= 8.0).unwrap_or(50.0 * power);
    (step, (max / step).ceil().max(1.0) * step)
}

/// A tick label with as many decimals as the step needs.
fn tick(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    format!("{v:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_end_on_round_numbers() {
        assert_eq!(nice_axis(0.0), (1.0, 1.0));
        assert_eq!(nice_axis(9.0), (2.0, 10.0));
        assert_eq!(nice_axis(66.0), (10.0, 70.0));
        assert_eq!(nice_axis(30.3), (5.0, 35.0));
        assert_eq!(nice_axis(800.0), (100.0, 800.0));
        let (step, top) = nice_axis(0.37);
        assert!((step - 0.05).abs() < 1e-12 && (top - 0.4).abs() < 1e-12, "{step} {top}");
    }

    #[test]
    fn charts_draw_their_data_and_escape_labels() {
        let line = line_chart("t", "s", "n", &[Series { name: "a<b".into(), points: vec![(0.0, 0.0), (1.0, 5.0), (2.0, 3.0)] }]);
        assert_eq!(line.matches("<polyline").count(), 1);
        assert_eq!(line.matches("<circle").count(), 3);
        assert!(line.contains("a&lt;b") && !line.contains("a<b"));
        let bars = bar_chart(
            "c",
            &[Bar { label: "x".into(), value: 0.5, text: "0.5%".into() }, Bar { label: "y".into(), value: 20.0, text: "20%".into() }],
            1.0,
            Some((1.0, "1%")),
        );
        assert_eq!(bars.matches("class=\"bar low\"").count(), 1, "{bars}");
        assert_eq!(bars.matches("class=\"bar\"").count(), 1);
        assert!(bars.contains("class=\"rule\""));
    }
}
