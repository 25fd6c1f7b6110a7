"""A synthetic table served through openml-python's real code path, from a local cache folder.

Writes what openml-python 0.15 reads for a dataset it has cached — ``description.xml`` (with a
``parquet_url``, so openml looks for the parquet file), ``qualities.xml`` (the three qualities the
estimate reads) and ``dataset_<id>.pq`` — under ``ROOT/org/openml/www/datasets/<id>/``, the layout
of ``../shared/data/openml-cache``. ``openml.datasets.get_dataset(id, download_data=True)`` then
builds a real ``OpenMLDataset`` on it without a network, and :func:`benchirt.data.openml_source.load_openml`
loads it as it would CIFAR_10. Used by ``benchmarks/scale.py --memory`` and ``tests/test_data_compact.py``.
"""
from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

import pandas as pd

DESCRIPTION = """<oml:data_set_description xmlns:oml="http://openml.org/openml">
  <oml:id>{did}</oml:id>
  <oml:name>{name}</oml:name>
  <oml:version>1</oml:version>
  <oml:description>Synthetic table of benchirt's scale benchmark.</oml:description>
  <oml:format>Parquet</oml:format>
  <oml:upload_date>2026-11-23T00:00:00</oml:upload_date>
  <oml:licence>Public</oml:licence>
  <oml:url>https://example.invalid/data/{did}</oml:url>
  <oml:parquet_url>https://example.invalid/data/{did}/dataset_{did}.pq</oml:parquet_url>
  <oml:file_id>{did}</oml:file_id>
  <oml:default_target_attribute>{target}</oml:default_target_attribute>
  <oml:visibility>public</oml:visibility>
  <oml:status>active</oml:status>
  <oml:md5_checksum>0</oml:md5_checksum>
</oml:data_set_description>
"""
QUALITY = """  <oml:quality>
    <oml:name>{name}</oml:name>
    <oml:value>{value}</oml:value>
  </oml:quality>
"""


def write_openml_cache(root: str | Path, did: int, name: str, frame: pd.DataFrame, target: str) -> Path:
    """Cache ``frame`` (target column included) as OpenML dataset ``did`` under ``root``; returns its folder."""
    folder = Path(root) / "org" / "openml" / "www" / "datasets" / str(did)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "description.xml").write_text(
        DESCRIPTION.format(did=did, name=escape(name), target=escape(target)), encoding="utf-8")
    qualities = {"NumberOfInstances": len(frame), "NumberOfFeatures": frame.shape[1],
                 "NumberOfClasses": int(frame[target].nunique())}
    (folder / "qualities.xml").write_text(
        '<oml:data_qualities xmlns:oml="http://openml.org/openml">\n'
        + "".join(QUALITY.format(name=key, value=value) for key, value in qualities.items())
        + "</oml:data_qualities>\n", encoding="utf-8")
    frame.to_parquet(folder / f"dataset_{did}.pq", index=False)
    return folder
