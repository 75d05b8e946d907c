package serde

import (
	"errors"
	"strings"
	"testing"
)

const (
	testAvro = `{"type":"record","name":"User","namespace":"kbench.test","fields":[
	  {"name":"id","type":"string"},{"name":"age","type":"int"},
	  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
	  {"name":"tags","type":{"type":"array","items":"string"}},
	  {"name":"nick","type":["null","string"],"default":null},
	  {"name":"address","type":{"type":"record","name":"Address","fields":[{"name":"city","type":"string"}]}}]}`
	testJSONSchema = `{"title":"kbench.test.User","type":"object","properties":{
	  "id":{"type":"string"},"age":{"type":"integer"},"ts":{"type":"integer"},
	  "tags":{"type":"array","items":{"type":"string"}},"nick":{"type":["null","string"]},
	  "address":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
	  "required":["id","age"]}`
	testProto = `syntax = "proto3";
package kbench.test;
message User {
  string id = 1; int32 age = 2; int64 ts = 3; repeated string tags = 4; string nick = 5;
  Address address = 6;
}
message Address { string city = 1; }`
	testValue = `{"id":"u-1","age":42,"ts":1764300000123,"tags":["a","b"],"nick":"x","address":{"city":"Oslo"}}`
)

func TestRoundTripEachFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f    Format
		text string
		name string
	}{{Avro, testAvro, "kbench.test.User"}, {JSONSchema, testJSONSchema, "kbench.test.User"}, {Protobuf, testProto, "kbench.test.User"}} {
		t.Run(string(tc.f), func(t *testing.T) {
			t.Parallel()
			s, err := Parse(tc.f, tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tc.name {
				t.Errorf("Name = %q, want %q", s.Name, tc.name)
			}
			b, err := s.Encode(nil, 7, []byte(testValue))
			if err != nil {
				t.Fatal(err)
			}
			id, rest, err := SchemaID(b)
			if err != nil || id != 7 {
				t.Fatalf("SchemaID = %d, %v", id, err)
			}
			v, err := s.DecodePayload(rest)
			if err != nil {
				t.Fatal(err)
			}
			m := v.(map[string]any)
			if m["id"] != "u-1" || m["address"].(map[string]any)["city"] != "Oslo" {
				t.Errorf("decoded %v", v)
			}
			if tc.f != JSONSchema && len(b) >= len(testValue) {
				t.Errorf("%s record is %d bytes, not smaller than its %d bytes of JSON", tc.f, len(b), len(testValue))
			}
		})
	}
}

func TestMismatchNamesTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		f     Format
		text  string
		value string
		path  string
		words string
	}{
		{Avro, testAvro, strings.Replace(testValue, `"age":42`, `"age":"old"`, 1), "age", "wants int"},
		{Avro, testAvro, strings.Replace(testValue, `"id":"u-1"`, `"id":"u-1","extra":1`, 1), "extra", "not a field of record kbench.test.User"},
		{Avro, testAvro, strings.Replace(testValue, `"id":"u-1",`, ``, 1), "id", "has no default"},
		{Avro, testAvro, strings.Replace(testValue, `"city":"Oslo"`, `"city":5`, 1), "address.city", "wants string"},
		{JSONSchema, testJSONSchema, strings.Replace(testValue, `"age":42`, `"age":"old"`, 1), "age", "integer"},
		{JSONSchema, testJSONSchema, strings.Replace(testValue, `"city":"Oslo"`, `"town":"Oslo"`, 1), "address.town", "not a property"},
		{Protobuf, testProto, strings.Replace(testValue, `"age":42`, `"age":"old"`, 1), "age", "whole number"},
		{Protobuf, testProto, strings.Replace(testValue, `"city":"Oslo"`, `"town":"Oslo"`, 1), "address.town", "not a field of message kbench.test.Address"},
	} {
		s, err := Parse(tc.f, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Encode(nil, 1, []byte(tc.value))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s %s: err = %v, want a FieldError", tc.f, tc.path, err)
			continue
		}
		if fe.PathString() != tc.path || !strings.Contains(fe.Reason, tc.words) {
			t.Errorf("%s: err = %v, want path %s and %q", tc.f, err, tc.path, tc.words)
		}
	}
}
