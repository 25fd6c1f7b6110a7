"""Item Response Theory for benchmark response matrices (seed 003 §2.5, §4.1, §4.4-4.5)."""
from benchirt.irt.config import IRTConfig
from benchirt.irt.estimation import fit_irt
from benchirt.irt.fit import IRTFit

__all__ = ["IRTConfig", "IRTFit", "fit_irt"]
