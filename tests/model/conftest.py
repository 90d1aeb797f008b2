"""The model test's fixtures: the one local SparkSession of the Spark tests."""

from tests.spark.conftest import spark

__all__ = ["spark"]
