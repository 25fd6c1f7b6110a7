"""The respondents of the response stage: real classifiers, the MLP epoch ladder, artificial classifiers.

Cardoso et al. 2021 §4.3 describes decodIRT's three sets of models; :mod:`benchirt.pool.real`,
:mod:`benchirt.pool.ladder` and :mod:`benchirt.pool.artificial` build one set each.
"""
from benchirt.lazy import attach_stub

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

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)
