//! The Rerun recording of the Delta robot (feature `rerun`), read back from the SDK's memory
//! sink: an entity per body under `world/`, one transform per body per frame on the timeline
//! `time`, the drawing's meshes, and the series. And the arm of `tests/models/viewer_arm.xml`,
//! whose mesh file becomes an `Asset3D`.
#![cfg(feature = "rerun")]

use std::collections::BTreeMap;

use rerun::log::{Chunk, LogMsg};
use spark::{GaussLobatto, Integrator, State};
use spark_viewer::Recording;

spark::mechanics! {
    /// `tests/models/delta.xml`.
    pub struct Delta {
        mjcf: "../tests/models/delta.xml",
    }
}

spark::mechanics! {
    /// `tests/models/viewer_arm.xml`.
    pub struct ViewerArm {
        mjcf: "../tests/models/viewer_arm.xml",
    }
}

/// Per entity: (static rows, rows with a transform on `time`, descriptors seen).
fn read_back(msgs: Vec<LogMsg>) -> BTreeMap<String, (usize, usize, Vec<String>)> {
    let mut out: BTreeMap<String, (usize, usize, Vec<String>)> = BTreeMap::new();
    let translation = rerun::Transform3D::descriptor_translation();
    for m in msgs {
        let LogMsg::ArrowMsg(_, arrow) = m else {
            continue;
        };
        let chunk = Chunk::from_arrow_msg(&arrow).expect("a chunk");
        let e = out.entry(chunk.entity_path().to_string()).or_default();
        if chunk.is_static() {
            e.0 += chunk.num_rows();
        } else if chunk.component_descriptors().any(|d| d == translation)
            && chunk.timelines().keys().any(|t| t.as_str() == "time")
        {
            e.1 += chunk.num_rows();
        }
        for d in chunk.component_descriptors() {
            let c = d.component.to_string();
            if !e.2.contains(&c) {
                e.2.push(c);
            }
        }
    }
    out
}

#[test]
fn delta_recording_has_every_body_every_frame_and_its_drawing() {
    let mut sim = Integrator::<Delta, GaussLobatto<2>>::new(Delta::default(), 0.005).unwrap();
    let mut s = State::new(0.0, Delta::REFERENCE_CONFIGURATION, [0.0; 15]);
    let mut rec = Recording::new("Delta robot", &Delta::GEOMETRY);
    let frames = 40;
    for _ in 0..frames {
        rec.frame(s.t, &Delta::body_poses(&s.q)).unwrap();
        rec.scalar("closure residual", s.t, sim.constraint_residual(&s).0)
            .unwrap();
        sim.step(&mut s).unwrap();
    }
    let (stream, storage) = rerun::RecordingStreamBuilder::new("spark-viewer-test")
        .memory()
        .unwrap();
    let warnings = rec.log_to(&stream).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let entities = read_back(storage.take());
    for name in Delta::BODY_NAMES {
        let path = format!("/world/{name}");
        let (_, transforms, _) = entities
            .get(&path)
            .unwrap_or_else(|| panic!("no entity {path}: {:?}", entities.keys()));
        assert_eq!(*transforms, frames, "{path}: one transform per frame");
    }
    // The drawing (the Delta's skeleton: the file has no geoms): a static pose and mesh each.
    let visuals: Vec<_> = entities
        .iter()
        .filter(|(p, _)| p.contains("/visual_"))
        .collect();
    assert_eq!(visuals.len(), Delta::SKELETON.len());
    for (p, (statics, _, components)) in &visuals {
        assert!(*statics >= 2, "{p}: {statics} static rows");
        assert!(
            components.iter().any(|c| c == "Mesh3D:vertex_positions"),
            "{p}: {components:?}"
        );
    }
    let series = &entities["/series/closure_residual"];
    assert!(
        series.2.iter().any(|c| c.starts_with("Scalars:")),
        "{series:?}"
    );
    // And the file sink writes an .rrd.
    let file = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("delta.rrd");
    rec.write_rrd(&file).unwrap();
    assert!(std::fs::metadata(&file).unwrap().len() > 10_000);
}

#[test]
fn mesh_files_become_assets() {
    let mut rec = Recording::new("arm", &ViewerArm::GEOMETRY);
    let q = spark::nalgebra::SVector::<f64, 4>::zeros();
    rec.frame(0.0, &ViewerArm::body_poses(&q)).unwrap();
    let (stream, storage) = rerun::RecordingStreamBuilder::new("spark-viewer-test")
        .memory()
        .unwrap();
    rec.log_to(&stream).unwrap();
    let entities = read_back(storage.take());
    let assets = entities
        .values()
        .filter(|e| e.2.iter().any(|c| c == "Asset3D:blob"))
        .count();
    assert_eq!(assets, 2, "the two fingers: {entities:?}");
}
