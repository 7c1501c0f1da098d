export const en = {
  resources: {
    'access-matrix': {
      name: 'Access matrix line |||| Access matrix',
      fields: {
        user_name: 'Person',
        user_id: 'Person',
        identifier_name: 'Identifier',
        identifier_id: 'Identifier',
        identifier_type: 'Type',
        device_name: 'Device',
        device_id: 'Device',
        lock_number: 'Lock',
        rule_name: 'Access rule',
        rule_id: 'Access rule',
        prohibition: 'Effect',
        schedules: 'Schedules',
        search: 'Search',
      },
    },
  },
  access_matrix: {
    title: 'Access matrix',
    search: 'Person, identifier, device or rule',
    nobody: 'No owner',
    always: 'Any time',
    allows: 'Allows',
    denies: 'Denies',
    range: '%{from}–%{to} of %{total}',
  },
};

export const ru: typeof en = {
  resources: {
    'access-matrix': {
      name: 'Строка матрицы доступа |||| Матрица доступа',
      fields: {
        user_name: 'Человек',
        user_id: 'Человек',
        identifier_name: 'Идентификатор',
        identifier_id: 'Идентификатор',
        identifier_type: 'Тип',
        device_name: 'Устройство',
        device_id: 'Устройство',
        lock_number: 'Замок',
        rule_name: 'Правило',
        rule_id: 'Правило доступа',
        prohibition: 'Доступ',
        schedules: 'Расписания',
        search: 'Поиск',
      },
    },
  },
  access_matrix: {
    title: 'Матрица доступа',
    search: 'Человек, идентификатор, устройство или правило',
    nobody: 'Без владельца',
    always: 'В любое время',
    allows: 'Разрешает',
    denies: 'Запрещает',
    range: '%{from}–%{to} из %{total}',
  },
};
