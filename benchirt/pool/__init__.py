"""The respondents of the response stage: real classifiers, the MLP epoch ladder, artificial classifiers.

Seed 003 §4.3 describes decodIRT's three sets of models; :mod:`benchirt.pool.real`,
:mod:`benchirt.pool.ladder` and :mod:`benchirt.pool.artificial` build them, one set each.
"""
from benchirt.lazy import lazy_exports

#: Roles a respondent plays; recorded per row of every response matrix.
ROLES: tuple[str, ...] = ("real", "ladder", "artificial")

#: decodIRT's respondent names (as in its ``*_acuracia.csv``/``true_scores.csv`` files, Portuguese for
#: the artificial ones) → benchirt's names. ``SVC`` is the name older decodIRT versions wrote for ``SVM``.
DECODIRT_NAMES: dict[str, str] = {
    "GaussianNB": "gaussian_nb",
    "BernoulliNB": "bernoulli_nb",
    "KNeighborsClassifier(2)": "knn_2",
    "KNeighborsClassifier(3)": "knn_3",
    "KNeighborsClassifier(5)": "knn_5",
    "KNeighborsClassifier(8)": "knn_8",
    "DecisionTreeClassifier()": "decision_tree",
    "RandomForestClassifier(3_estimators)": "random_forest_3",
    "RandomForestClassifier(5_estimators)": "random_forest_5",
    "RandomForestClassifier": "random_forest",
    "SVM": "svc",
    "SVC": "svc",
    "MLPClassifier": "mlp",
    "otimo": "optimal",
    "pessimo": "pessimal",
    "majoritario": "majority",
    "minoritario": "minority",
    "rand1": "random1",
    "rand2": "random2",
    "rand3": "random3",
}

__all__ = [
    "ALLOWED_PACKAGES",
    "ARTIFICIAL_NAMES",
    "DECODIRT_NAMES",
    "DEFAULT_POOL",
    "REAL_CLASSIFIERS",
    "ROLES",
    "ExtraEstimator",
    "LadderRun",
    "RealClassifier",
    "artificial_predictions",
    "ladder_name",
    "ladder_predictions",
    "resolve_classifier_class",
    "resolve_pool",
]

lazy_exports(__name__, {
    "ALLOWED_PACKAGES": "benchirt.pool.estimators",
    "ARTIFICIAL_NAMES": "benchirt.pool.artificial",
    "DEFAULT_POOL": "benchirt.pool.real",
    "ExtraEstimator": "benchirt.pool.real",
    "LadderRun": "benchirt.pool.ladder",
    "REAL_CLASSIFIERS": "benchirt.pool.real",
    "RealClassifier": "benchirt.pool.real",
    "artificial_predictions": "benchirt.pool.artificial",
    "ladder_name": "benchirt.pool.ladder",
    "ladder_predictions": "benchirt.pool.ladder",
    "resolve_classifier_class": "benchirt.pool.estimators",
    "resolve_pool": "benchirt.pool.real",
})
