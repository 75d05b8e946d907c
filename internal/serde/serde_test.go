package serde

import (
	"errors"
	"fmt"
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

// The fast Avro path (the run's) gives what the checked path gives (the
// same values; hamba/avro writes arrays and maps in blocks with their byte
// size, the fast path without, both Avro), and refuses what it refuses,
// naming the same field.
func TestAvroFastPathMatchesCheckedPath(t *testing.T) {
	t.Parallel()
	schema := `{"type":"record","name":"R","fields":[
	  {"name":"s","type":"string"},{"name":"i","type":"int"},{"name":"l","type":"long"},
	  {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"b","type":"boolean"},
	  {"name":"u","type":["null","string","long"],"default":null},
	  {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
	  {"name":"a","type":{"type":"array","items":"long"}},
	  {"name":"m","type":{"type":"map","values":"string"}},
	  {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
	  {"name":"n","type":{"type":"record","name":"N","fields":[{"name":"x","type":"string","default":"dx"}]}},
	  {"name":"opt","type":"string","default":"o"}]}`
	s, err := Parse(Avro, schema)
	if err != nil {
		t.Fatal(err)
	}
	if s.codec.(*avroCodec).fast == nil {
		t.Fatal("no fast path compiled")
	}
	good := []string{
		`{"s":"hé \"q\" \u00e9","i":-7,"l":1234567890123,"f":1.5,"d":-2.25e3,"b":true,"u":"x","e":"B","a":[1,-2,3],"m":{"k":"v"},"ts":1764300000123,"n":{"x":"y"}}`,
		`{"n":{},"ts":"2026-11-28T12:00:00.5Z","m":{},"a":[],"e":"A","u":null,"b":false,"d":0,"f":0,"l":-1,"i":2147483647,"s":""}`,
		`{"s":"a","i":1,"l":1,"f":1,"d":1,"b":true,"u":42,"e":"A","a":[0],"m":{"a":"b","c":"d"},"ts":0,"n":{"x":""},"opt":"p"}`,
	}
	for _, v := range good {
		slow, err := s.EncodeJSON(nil, []byte(v))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		fast, err := s.EncodeRaw(nil, []byte(v))
		if err != nil {
			t.Fatalf("%s: fast: %v", v, err)
		}
		ds, err1 := s.DecodePayload(slow)
		df, err2 := s.DecodePayload(fast)
		if err1 != nil || err2 != nil || fmt.Sprint(ds) != fmt.Sprint(df) {
			t.Errorf("%s:\nchecked %v (%v)\nfast    %v (%v)", v, ds, err1, df, err2)
		}
	}
	base := `{"s":"a","i":1,"l":1,"f":1,"d":1,"b":true,"e":"A","a":[0],"m":{},"ts":0,"n":{}}`
	for _, tc := range []struct{ from, to, path string }{
		{`"i":1`, `"i":"1"`, "i"},
		{`"i":1`, `"i":3000000000`, "i"},
		{`"l":1`, `"l":1.5`, "l"},
		{`"e":"A"`, `"e":"C"`, "e"},
		{`"a":[0]`, `"a":[0,"x"]`, "a[1]"},
		{`"s":"a",`, ``, "s"},
		{`"s":"a"`, `"s":"a","zz":1`, "zz"},
		{`"n":{}`, `"n":{"y":1}`, "n.y"},
	} {
		v := strings.Replace(base, tc.from, tc.to, 1)
		_, err := s.EncodeRaw(nil, []byte(v))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.PathString() != tc.path {
			t.Errorf("%s: err = %v, want a FieldError at %s", v, err, tc.path)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	v := []byte(`{"id":"0b0ffe4a-980f-43fb-80ad-433471de1f9c","name":"name","description":"6McobXZYrLRoRs3uMRlpfgekhq2bVS9QDNGEfxv8","value":73,"timestamp":1795901529513}`)
	for _, f := range []struct {
		f    Format
		text string
	}{
		{Avro, `{"type":"record","name":"User","fields":[{"name":"id","type":"string"},{"name":"name","type":"string"},{"name":"description","type":"string"},{"name":"value","type":"int"},{"name":"timestamp","type":"long"}]}`},
		{Protobuf, `syntax = "proto3"; message User { string id = 1; string name = 2; string description = 3; int32 value = 4; int64 timestamp = 5; }`},
		{JSONSchema, `{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"description":{"type":"string"},"value":{"type":"integer"},"timestamp":{"type":"integer"}}}`},
	} {
		s, err := Parse(f.f, f.text)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(f.f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.EncodeRaw(s.Frame(make([]byte, 0, 200), 1), v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The fast Protobuf path gives what the checked path (dynamicpb) gives,
// and names the same field when a value does not fit.
func TestProtobufFastPathMatchesCheckedPath(t *testing.T) {
	t.Parallel()
	schema := `syntax = "proto3";
package p;
message R {
  string s = 1; int32 i = 2; int64 l = 3; uint32 u = 4; sint64 z = 5; bool b = 6;
  float f = 7; double d = 8; bytes by = 9; E e = 10;
  repeated int64 nums = 11; repeated string strs = 12; repeated N ns = 13;
  map<string, int32> m = 14; map<int32, N> mn = 15; N n = 16; fixed32 fx = 17; sfixed64 sfx = 18;
}
enum E { A = 0; B = 1; }
message N { string x = 1; }`
	s, err := Parse(Protobuf, schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{
		`{"s":"hé \"q\"","i":-7,"l":"1234567890123","u":5,"z":-9,"b":true,"f":1.5,"d":-2.25e3,"by":"aGk=","e":"B","nums":[1,-2,3],"strs":["a",""],"ns":[{"x":"1"},{}],"m":{"k":1,"z":0},"mn":{"3":{"x":"y"}},"n":{"x":"y"},"fx":7,"sfx":-8}`,
		`{"s":"","i":0,"b":false,"e":"A","nums":[],"n":null,"m":{}}`,
		`{"e":1,"by":"not base64!"}`,
	} {
		slow, err := s.EncodeJSON(nil, []byte(v))
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		fast, err := s.EncodeRaw(nil, []byte(v))
		if err != nil {
			t.Fatalf("%s: fast: %v", v, err)
		}
		ds, err1 := s.codec.decode(slow)
		df, err2 := s.codec.decode(fast)
		if err1 != nil || err2 != nil || fmt.Sprint(ds) != fmt.Sprint(df) {
			t.Errorf("%s:\nchecked %v (%v)\nfast    %v (%v)", v, ds, err1, df, err2)
		}
	}
	for v, path := range map[string]string{
		`{"i":"x"}`:                  "i",
		`{"i":3000000000}`:           "i",
		`{"e":"C"}`:                  "e",
		`{"nums":[1,"x"]}`:           "nums[1]",
		`{"n":{"y":1}}`:              "n.y",
		`{"zz":1}`:                   "zz",
		`{"ns":[{"x":"1"},{"x":2}]}`: "ns[1].x",
	} {
		_, err := s.EncodeRaw(nil, []byte(v))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.PathString() != path {
			t.Errorf("%s: err = %v, want a FieldError at %s", v, err, path)
		}
	}
}
