package rdf

const filmSample = "../../../shared/data/freebase-30kmovies.nq.gz"
