"""Safe resolution of classifier classes named in a config: nothing outside the allow-list is imported or built."""
from __future__ import annotations

import sys
import textwrap

import pytest
from sklearn.linear_model import LogisticRegression

from benchirt.errors import ConfigError
from benchirt.pool import ALLOWED_PACKAGES, ExtraEstimator, resolve_classifier_class
from benchirt.responses.config import ResponseConfig

ALLOWED_TEXT = "allowed: classifier classes from sklearn, xgboost, lightgbm, catboost"


def test_resolves_a_classifier_class_without_building_it():
    assert resolve_classifier_class("sklearn.linear_model.LogisticRegression") is LogisticRegression
    assert ALLOWED_PACKAGES == ("sklearn", "xgboost", "lightgbm", "catboost")


@pytest.mark.parametrize(
    "dotted, message",
    [
        ("os.system", "extra classifier 'x': 'os.system' is outside the allowed packages; " + ALLOWED_TEXT),
        ("subprocess.Popen", "'subprocess.Popen' is outside the allowed packages; " + ALLOWED_TEXT),
        ("builtins.eval", "'builtins.eval' is outside the allowed packages"),
        ("LogisticRegression", "'LogisticRegression' is not a dotted class path like 'sklearn.svm.LinearSVC'"),
        ("sklearn..svm", "is not a dotted class path"),
        ("sklearn.utils._testing.ignore_warnings", "names a private module or attribute"),
        ("sklearn.base.clone", "'sklearn.base.clone' is not a class (function)"),
        ("sklearn.preprocessing.StandardScaler", "sklearn.preprocessing.StandardScaler is not a scikit-learn classifier"),
        ("sklearn.base.ClassifierMixin", "is not a scikit-learn classifier"),
        ("sklearn.linear_model.NoSuchModel", "module 'sklearn.linear_model' has no attribute 'NoSuchModel'"),
        ("sklearn.nosuchmodule.Model", "cannot import 'sklearn.nosuchmodule'"),
    ],
)
def test_refuses_everything_but_classifier_classes(dotted, message):
    with pytest.raises(ConfigError) as info:
        resolve_classifier_class(dotted, where="extra classifier 'x'")
    assert message in str(info.value)


def _package(tmp_path, monkeypatch, name, body):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_package_outside_allow_list_is_never_imported(tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    _package(tmp_path, monkeypatch, "sideeffect_pkg", f"open({str(marker)!r}, 'w').close()\nclass Model: pass\n")
    with pytest.raises(ConfigError, match="outside the allowed packages"):
        resolve_classifier_class("sideeffect_pkg.Model")
    assert not marker.exists() and "sideeffect_pkg" not in sys.modules


def test_users_own_package_when_listed(tmp_path, monkeypatch):
    _package(
        tmp_path,
        monkeypatch,
        "my_models",
        """
        from sklearn.base import BaseEstimator, ClassifierMixin
        from sklearn.dummy import DummyClassifier as Reexported

        class Mine(ClassifierMixin, BaseEstimator):
            def fit(self, X, y):
                return self

            def predict(self, X):
                return [0] * len(X)
        """,
    )
    config = ResponseConfig.from_dict(
        {"allowed_packages": ["my_models"], "extra": {"mine": {"estimator": "my_models.Mine"}}}
    )
    assert config.extra[0].to_real().estimator_class.__name__ == "Mine"
    assert config.to_dict()["allowed_packages"] == ["my_models"]
    with pytest.raises(ConfigError, match="'my_models.Mine' is outside the allowed packages"):
        ResponseConfig.from_dict({"extra": {"mine": {"estimator": "my_models.Mine"}}})
    # a re-exported class counts where it is defined (sklearn: allowed), not where it is found
    assert resolve_classifier_class("my_models.Reexported",
                                    allowed_packages=["my_models"]).__name__ == "DummyClassifier"


def test_os_system_in_config_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    entry = {"estimator": "os.system", "params": {"command": f"touch {marker}"}}
    with pytest.raises(ConfigError, match="'os.system' is outside the allowed packages"):
        ResponseConfig.from_dict({"extra": {"evil": entry}})
    assert not marker.exists()


def test_invalid_parameter_value_fails_at_config_time():
    entry = {"estimator": "sklearn.linear_model.LogisticRegression", "params": {"C": -1}}
    with pytest.raises(ConfigError) as info:
        ExtraEstimator.from_dict("logreg", entry)
    message = str(info.value)
    assert message.startswith("extra classifier 'logreg': sklearn.linear_model.LogisticRegression({'C': -1}) cannot be built:")
    assert "'C' parameter" in message and "Fix 'params'" in message


@pytest.mark.parametrize("allowed", ["my_models", [1], ["my-models"]])
def test_allowed_packages_must_be_package_names(allowed):
    with pytest.raises(ConfigError, match=r"^respond.allowed_packages: got .*, expected a list of top-level package names$"):
        ResponseConfig.from_dict({"allowed_packages": allowed})


def test_run_with_os_system_in_extra_exits_2_before_any_side_effect(tmp_path, capsys):
    from benchirt.cli import main

    marker, out = tmp_path / "pwned", tmp_path / "out"
    config = tmp_path / "evil.yaml"
    config.write_text(f"suite: builtin\nresponses:\n  extra:\n    evil: {{estimator: os.system, params: {{command: 'touch {marker}'}}}}\n")
    assert main(["run", str(config), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"benchirt run: error: {config}: section 'respond': extra classifier 'evil': 'os.system' is "
                          "outside the allowed packages; allowed: classifier classes from sklearn, xgboost, lightgbm, catboost")
    assert len(err.splitlines()) == 1 and not marker.exists() and not out.exists()
