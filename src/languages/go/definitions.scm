; Go definitions for the auto-fix code index.
; Captures: @class (a named type) / @function / @method (the definition node), @name, @bases (embedded
; types), @receiver (a method's receiver list).

(type_spec
  name: (type_identifier) @name) @class

(type_alias
  name: (type_identifier) @name) @class

; Embedded struct fields and embedded interfaces act as bases.
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration
        !name
        type: (_) @bases))))

(type_spec
  type: (interface_type
    (type_elem) @bases))

(function_declaration
  name: (identifier) @name) @function

(method_declaration
  receiver: (parameter_list) @receiver
  name: (field_identifier) @name) @method
