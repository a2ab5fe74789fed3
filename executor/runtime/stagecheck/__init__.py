"""stagecheck's runtime, as programs see it: `import stagecheck as sc`.

- `sc.function` marks a function for staging (TensorFlow's `tf.function`):
  the identity in the original and unstaged modes; the staging issue makes
  it trace in the staged modes.
- `sc.ag` holds the operators that converted code calls (AutoGraph's
  `ag__`); the converter inserts `from stagecheck import ag as ag__`.
"""

from stagecheck import ag


def function(func=None, **options):
    """Marks `func` for staging. Usable bare (`@sc.function`) or with options."""
    if func is None:
        return lambda f: function(f, **options)
    func.__stagecheck_function__ = options
    return func
