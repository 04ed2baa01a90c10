//! The results as a Parquet file: one row per run, written with the parquet crate's column
//! writer (no Arrow), and read back into a small [`Table`].

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use parquet::basic::{LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::record::Field;
use parquet::schema::types::Type;

use crate::results::Results;
use crate::Error;

/// The columns every results file starts with.
const FIXED: [&str; 3] = ["run", "status", "seconds"];

/// Rows per row group: readers can skip or parallelize over groups of this size.
const ROW_GROUP: usize = 65_536;

pub(crate) fn write(results: &Results, path: &Path) -> Result<(), Error> {
    let drawn = results.drawn_columns();
    let values = results.columns();
    let mut all: Vec<&str> = FIXED.to_vec();
    for name in drawn.iter().chain(values) {
        if all.contains(&name.as_str()) {
            return Err(Error::Settings(format!(
                "the column {name:?} is named twice (by a draw, a returned value, or one of \
                 {FIXED:?}): rename one"
            )));
        }
        all.push(name);
    }
    let mut fields = vec![
        Arc::new(
            Type::primitive_type_builder("run", PhysicalType::INT64)
                .with_repetition(Repetition::REQUIRED)
                .build()?,
        ),
        Arc::new(
            Type::primitive_type_builder("status", PhysicalType::BYTE_ARRAY)
                .with_repetition(Repetition::REQUIRED)
                .with_logical_type(Some(LogicalType::String))
                .build()?,
        ),
        Arc::new(
            Type::primitive_type_builder("seconds", PhysicalType::DOUBLE)
                .with_repetition(Repetition::REQUIRED)
                .build()?,
        ),
    ];
    for name in drawn.iter().chain(values) {
        fields.push(Arc::new(
            Type::primitive_type_builder(name, PhysicalType::DOUBLE)
                .with_repetition(Repetition::OPTIONAL)
                .build()?,
        ));
    }
    let schema = Arc::new(
        Type::group_type_builder("ensemble")
            .with_fields(fields)
            .build()?,
    );
    let file = File::create(path)?;
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(file, schema, props)?;
    for group in results.records().chunks(ROW_GROUP) {
        let mut rows = writer.next_row_group()?;
        let mut column = 0;
        while let Some(mut col) = rows.next_column()? {
            match column {
                0 => {
                    let v: Vec<i64> = group.iter().map(|r| r.index() as i64).collect();
                    col.typed::<Int64Type>().write_batch(&v, None, None)?;
                }
                1 => {
                    let v: Vec<ByteArray> = group
                        .iter()
                        .map(|r| ByteArray::from(r.status().to_string().as_str()))
                        .collect();
                    col.typed::<ByteArrayType>().write_batch(&v, None, None)?;
                }
                2 => {
                    let v: Vec<f64> = group.iter().map(|r| r.seconds()).collect();
                    col.typed::<DoubleType>().write_batch(&v, None, None)?;
                }
                k => {
                    let name = all[k];
                    let cells: Vec<Option<f64>> = group
                        .iter()
                        .map(|r| {
                            if k < FIXED.len() + drawn.len() {
                                r.drawn(name)
                            } else {
                                r.value(name)
                            }
                        })
                        .collect();
                    let present: Vec<f64> = cells.iter().flatten().copied().collect();
                    let levels: Vec<i16> = cells.iter().map(|c| i16::from(c.is_some())).collect();
                    col.typed::<DoubleType>()
                        .write_batch(&present, Some(&levels), None)?;
                }
            }
            col.close()?;
            column += 1;
        }
        rows.close()?;
    }
    writer.close()?;
    Ok(())
}

/// One cell of a [`Table`].
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A missing value (a failed run's values, a value a run did not draw).
    Null,
    /// An integer (the `run` column).
    Int(i64),
    /// A number.
    Number(f64),
    /// A text (the `status` column).
    Text(String),
}

/// A results file read back: column names and rows of cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// The column names, in file order.
    pub columns: Vec<String>,
    /// The rows, each with one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// The cells of the column `name`, top to bottom.
    pub fn column(&self, name: &str) -> Option<Vec<&Cell>> {
        let k = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| &r[k]).collect())
    }
}

/// Reads a Parquet file (one [`crate::Results::write_parquet`] wrote, or any other of flat
/// integer, number and text columns) into a [`Table`].
///
/// A results file has the columns `run` (the index), `status` (`ok`, the error, or `panic: `
/// and the message), `seconds` (the run's wall time), then one per drawn value, then one per
/// returned value; a failed run's returned values are null.
///
/// ```
/// use spark_ensemble::{read_parquet, Ensemble};
/// use spark_ensemble::Cell;
///
/// let results = Ensemble::new(3).quiet().run(&["twice"], |run| {
///     let x = run.uniform("x", 0.0, 1.0);
///     if run.index() == 1 { Err("no") } else { Ok([2.0 * x]) }
/// });
/// let path = std::env::temp_dir().join(format!("spark-ensemble-read-{}.parquet", std::process::id()));
/// results.write_parquet(&path).unwrap();
/// let table = read_parquet(&path).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(table.columns, ["run", "status", "seconds", "x", "twice"]);
/// assert_eq!(table.rows.len(), 3);
/// assert_eq!(table.column("status").unwrap()[1], &Cell::Text("no".into()));
/// assert_eq!(table.column("twice").unwrap()[1], &Cell::Null);
/// ```
pub fn read_parquet(path: impl AsRef<Path>) -> Result<Table, Error> {
    let reader = SerializedFileReader::new(File::open(path.as_ref())?)?;
    let columns: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_owned())
        .collect();
    let mut rows = Vec::new();
    for row in reader.get_row_iter(None)? {
        let row = row?;
        let cells = row
            .get_column_iter()
            .map(|(name, field)| match field {
                Field::Null => Ok(Cell::Null),
                Field::Int(v) => Ok(Cell::Int(i64::from(*v))),
                Field::Long(v) => Ok(Cell::Int(*v)),
                Field::Float(v) => Ok(Cell::Number(f64::from(*v))),
                Field::Double(v) => Ok(Cell::Number(*v)),
                Field::Str(s) => Ok(Cell::Text(s.clone())),
                other => Err(Error::Parquet(format!(
                    "column {name:?} holds {other}, which a results table does not read"
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        rows.push(cells);
    }
    Ok(Table { columns, rows })
}
