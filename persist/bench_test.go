package persist

func removeBenchFixture() {}
