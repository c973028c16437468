# The longest tests' seconds on a 2-core lavapipe machine, so that ctest starts them first: a
# fresh clone has no timings of its own (Testing/Temporary/CTestCostData.txt), and a long test
# left to the end runs on one core while the other waits.
set(alluvium_test_costs
  "CliExport.WatertableSettlesOnAProceduralTerrain" 32
  "ParticlesTest.ConservesSoilAtTheTableExtremes" 14
  "Viewer.UndoRedoAndBranchesUnderXvfb" 29
  "Viewer.TheBrushPaintsInRealTimePausedOrRunningUnderXvfb" 27
  "GroundwaterTest.DupuitMoundUnderRecharge" 29
  "Terrains.ErosionCutsValleysIntoRawRelief" 21
  "Terrains.TheAlluvialFanPresetBuildsAConeBelowTheNotch" 15
  "HistoryTest.RestoreIsBitExactForEveryModelAfterRunningOn" 30
  "StepTest.SoilConservedOverTenThousandSteps" 33
  "Shards/RandomParametersTest.NeverBlowUp/0" 14
  "Shards/RandomParametersTest.NeverBlowUp/1" 14
  "Shards/RandomParametersTest.NeverBlowUp/2" 14
  "Shards/RandomParametersTest.NeverBlowUp/3" 14
  "GroundwaterTest.DupuitBetweenTwoHeads" 30
  "WorkgroupTest.EveryShapeComputesTheSameSteps" 24
  "GroundwaterTest.BudgetClosesWithInfiltrationAndSeepage" 32
  "SeaTest.RiverDropsItsLoadAtTheMouth" 22
  "DigestMatrix.EveryOutputIsTheSameToTheBit" 30
  "WeatherTest.AStormDriftsDownwindAtItsSpeed" 15
  "Viewer.WaterStrokeUnderXvfb" 15
  "WorkgroupTest.SubgroupPartialsSumExactlyAsWorkgroupPartials" 15
  "LayersTest.StrataStepTheSlope" 13
  "Resolution.ARealDemAtTwoCellSizesErodesAlike" 16
  "Terrains.TheDeltaPresetBuildsLandSeawardOfTheMouth" 40)
list(LENGTH alluvium_test_costs alluvium_n)
math(EXPR alluvium_last "${alluvium_n} - 1")
foreach(i RANGE 0 ${alluvium_last} 2)
  math(EXPR j "${i} + 1")
  list(GET alluvium_test_costs ${i} alluvium_name)
  list(GET alluvium_test_costs ${j} alluvium_cost)
  set_tests_properties("${alluvium_name}" PROPERTIES COST ${alluvium_cost})
endforeach()
