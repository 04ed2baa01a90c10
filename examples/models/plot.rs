// A small line-plot helper shared by the examples (included with `include!`): SVG output through
// plotters, linear or logarithmic axes.

#[allow(dead_code)]
mod plot {
    use plotters::prelude::*;

    /// A labelled curve and its colour.
    pub type Series<'a> = (&'a str, &'a [(f64, f64)], RGBColor);

    /// Axis scaling.
    #[derive(Clone, Copy, PartialEq)]
    pub enum Axis {
        Linear,
        Log,
    }

    fn range(values: impl Iterator<Item = f64> + Clone, axis: Axis) -> (f64, f64) {
        let ok = |x: &f64| x.is_finite() && (axis == Axis::Linear || *x > 0.0);
        let lo = values.clone().filter(ok).fold(f64::INFINITY, f64::min);
        let hi = values.filter(ok).fold(f64::NEG_INFINITY, f64::max);
        match axis {
            Axis::Log => (lo / 2.0, hi * 2.0),
            Axis::Linear => {
                let pad = 0.05 * (hi - lo).max(1e-300);
                (lo - pad, hi + pad)
            }
        }
    }

    /// Writes `series` to the SVG file `path`.
    pub fn lines(
        path: &str,
        title: &str,
        (x_label, x_axis): (&str, Axis),
        (y_label, y_axis): (&str, Axis),
        series: &[Series],
    ) -> Result<(), Box<dyn std::error::Error>> {
        let xs = series.iter().flat_map(|(_, d, _)| d.iter().map(|p| p.0));
        let ys = series.iter().flat_map(|(_, d, _)| d.iter().map(|p| p.1));
        let (x0, x1) = range(xs, x_axis);
        let (y0, y1) = range(ys, y_axis);
        let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(title, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(40)
            .y_label_area_size(80);
        macro_rules! draw {
            ($chart:expr) => {{
                let mut chart = $chart;
                chart
                    .configure_mesh()
                    .x_desc(x_label)
                    .y_desc(y_label)
                    .x_label_formatter(&|x| tidy(*x))
                    .y_label_formatter(&|y| format!("{y:.1e}"))
                    .draw()?;
                for (label, data, color) in series {
                    let c = *color;
                    let keep = |p: &&(f64, f64)| {
                        (x_axis == Axis::Linear || p.0 > 0.0) && (y_axis == Axis::Linear || p.1 > 0.0)
                    };
                    chart
                        .draw_series(LineSeries::new(data.iter().filter(keep).copied(), c))?
                        .label(*label)
                        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
                }
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::LowerRight)
                    .background_style(WHITE)
                    .border_style(BLACK)
                    .draw()?;
            }};
        }
        match (x_axis, y_axis) {
            (Axis::Linear, Axis::Linear) => draw!(builder.build_cartesian_2d(x0..x1, y0..y1)?),
            (Axis::Linear, Axis::Log) => draw!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?),
            (Axis::Log, Axis::Linear) => draw!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?),
            (Axis::Log, Axis::Log) => {
                draw!(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?)
            }
        }
        root.present()?;
        Ok(())
    }

    /// `(max |y|, max |y| over the first tenth, max |y| over the last tenth)` of a series: an
    /// error that drifts grows from the first to the last tenth.
    pub fn tenths(e: &[(f64, f64)]) -> (f64, f64, f64) {
        let max = |d: &[(f64, f64)]| d.iter().fold(0.0f64, |m, p| m.max(p.1.abs()));
        let n = e.len();
        (max(e), max(&e[..n / 10]), max(&e[n - n / 10..]))
    }

    /// A tick label without binary-to-decimal noise (0.30000000000000004 -> 0.3).
    fn tidy(x: f64) -> String {
        if x != 0.0 && !(1e-3..1e4).contains(&x.abs()) {
            return format!("{x:.1e}");
        }
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    }
}
